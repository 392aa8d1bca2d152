// geojsonOfWkb writes a geometry's GeoJSON straight from its WKB for the GeoJSON GetFeature: checked
// byte for byte against the general way (wkx's geometry, JSON.stringify) on every 2D type in both
// byte orders, with empty parts, NaN and extreme numbers, and left to the general way for the rest.
import t from 'tap'
import wkx from 'wkx'
import { decodeGeometry, geojsonOfWkb } from '../../../services/wfs/geometry.js'

const P = (x: number, y: number) => new wkx.Point(x, y)
const line = (...xy: number[]) => { const l = []; for (let i = 0; i < xy.length; i += 2) l.push(P(xy[i], xy[i + 1])); return l }
const odd = [0.1 + 0.2, -0, 1e21, 1e-7, -179.99999999999997, 123456789.123456789, NaN, Infinity]

/** A WKB in the other byte order (big endian) of a geometry's little-endian one. */
function bigEndian (le: Buffer): Buffer {
  // wkx writes little endian only: swapped here, member by member.
  const out = Buffer.from(le)
  let at = 0
  const swap4 = () => { out.writeUInt32BE(le.readUInt32LE(at), at); at += 4 }
  const swap8 = () => { out.writeDoubleBE(le.readDoubleLE(at), at); at += 8 }
  const geom = (): void => {
    out[at++] = 0
    const type = le.readUInt32LE(at); swap4()
    const points = () => { const n = le.readUInt32LE(at); swap4(); for (let i = 0; i < n; i++) { swap8(); swap8() } }
    if (type === 1) { swap8(); swap8() } else if (type === 2) points()
    else if (type === 3) { const n = le.readUInt32LE(at); swap4(); for (let i = 0; i < n; i++) points() } else { const n = le.readUInt32LE(at); swap4(); for (let i = 0; i < n; i++) geom() }
  }
  geom()
  return out
}

t.test('2D geometries: the same text as JSON.stringify(decodeGeometry(wkb))', async (t) => {
  const geoms: wkx.Geometry[] = [
    P(1, 2), P(-179.2081, -74.5271), ...odd.map((v) => P(v, -v)), P(NaN, NaN),
    new wkx.LineString(line(0, 0, 1.5, 2.25, odd[0], odd[4])), new wkx.LineString([]),
    new wkx.Polygon(line(0, 0, 10, 0, 10, 10, 0, 0), [line(1, 1, 2, 1, 2, 2, 1, 1), []]), new wkx.Polygon([]), new wkx.Polygon([], [line(1, 1, 2, 2)]),
    new wkx.MultiPoint([P(1, 2), P(odd[5], odd[3])]), new wkx.MultiPoint([]),
    new wkx.MultiLineString([new wkx.LineString(line(0, 0, 1, 1)), new wkx.LineString([])]),
    new wkx.MultiPolygon([new wkx.Polygon(line(0, 0, 1, 0, 1, 1, 0, 0)), new wkx.Polygon([])])
  ]
  for (const g of geoms) {
    const le = g.toWkb()
    for (const wkb of [le, bigEndian(le)]) {
      const want = JSON.stringify(decodeGeometry(wkb))
      t.equal(geojsonOfWkb(wkb), want, want)
    }
  }
})

t.test('anything else is left to the general way', async (t) => {
  const z = new wkx.Point(1, 2, 3)
  t.equal(geojsonOfWkb(z.toWkb()), undefined, 'a 3D point')
  t.equal(geojsonOfWkb(new wkx.GeometryCollection([P(1, 2)]).toWkb()), undefined, 'a collection')
  t.equal(geojsonOfWkb(new wkx.MultiPoint([P(1, 2)]).toWkb().subarray(0, 12)), undefined, 'bytes cut short')
  t.equal(geojsonOfWkb('{"type":"Point","coordinates":[1,2]}'), undefined, 'GeoJSON text')
  t.equal(geojsonOfWkb(null), undefined, 'no geometry')
  // A multi-point whose member is a line: wkx reads it as a line, this leaves it to wkx.
  const mixed = Buffer.concat([Buffer.from([1, 4, 0, 0, 0, 1, 0, 0, 0]), new wkx.LineString(line(0, 0, 1, 1)).toWkb()])
  t.equal(geojsonOfWkb(mixed), undefined, 'a member of another type')
})
