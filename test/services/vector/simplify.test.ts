// Simplification to a map's pixel in JavaScript (services/vector/simplify.ts), as PostGIS'
// ST_RemoveRepeatedPoints(ST_Simplify(g, tolerance, true)) does it for the PostGIS source: what is
// kept and what collapses; and a shapefile read with a tolerance gives the map the simplified
// geometry, a read without one every vertex.
import t from 'tap'
import path from 'node:path'
import wkx from 'wkx'
import { tempDir } from '../../helper.js'
import { writeShapefile, ESRI_WGS84_PRJ } from '../../fixtures/vector/files.js'
import { simplifyGeojson, simplifyWkb } from '../../../services/vector/simplify.js'
import { createShapefileSource } from '../../../services/vector/shapefile-source.js'
import type { Feature } from '../../../services/vector/source.js'

t.test('Douglas-Peucker keeps the points further than the tolerance and the ends', async (t) => {
  const line = { type: 'LineString', coordinates: [[0, 0], [1, 0.05], [2, 0], [3, 2], [4, 0], [4, 0]] }
  t.same(simplifyGeojson(line, 0.1), { type: 'LineString', coordinates: [[0, 0], [2, 0], [3, 2], [4, 0]] }, 'a point 0.05 off dropped, a repeated end once')
  t.same(simplifyGeojson({ type: 'Point', coordinates: [1, 2] }, 10), { type: 'Point', coordinates: [1, 2] }, 'points as they are')
  const z = simplifyGeojson({ type: 'LineString', coordinates: [[0, 0, 5], [1, 0, 6], [2, 0, 7]] }, 0.1)
  t.same(z.coordinates, [[0, 0, 5], [2, 0, 7]], 'z rides along')
})

t.test('collapsed geometries stay visible as PostGIS preserveCollapsed keeps them; holes and lines of one point go', async (t) => {
  t.same(simplifyGeojson({ type: 'LineString', coordinates: [[0, 0], [0.01, 0.01], [0.02, 0]] }, 1).coordinates, [[0, 0], [0.02, 0]], 'a short line keeps its two ends')
  t.equal(simplifyGeojson({ type: 'LineString', coordinates: [[5, 5], [5, 5]] }, 1), null, 'a line of one repeated point is gone')
  const tiny = [[0, 0], [0.01, 0], [0.01, 0.01], [0, 0.01], [0, 0]]
  t.equal(simplifyGeojson({ type: 'Polygon', coordinates: [tiny] }, 1).coordinates[0].length, 4, 'a polygon smaller than the tolerance keeps a closed triangle')
  const big = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]
  const hole = [[5, 5], [5.01, 5], [5.01, 5.01], [5, 5.01], [5, 5]]
  t.same(simplifyGeojson({ type: 'Polygon', coordinates: [big, hole] }, 1).coordinates, [big], 'a hole smaller than the tolerance is dropped')
  const multi = simplifyGeojson({ type: 'MultiPolygon', coordinates: [[big], [tiny.map(([x, y]) => [x + 20, y])]] }, 1)
  t.equal(multi.coordinates.length, 2, 'each polygon of a multi-polygon kept')
  const wkb = wkx.Geometry.parseGeoJSON({ type: 'LineString', coordinates: [[0, 0], [1, 0.01], [2, 0]] }).toWkb()
  t.same(wkx.Geometry.parse(simplifyWkb(wkb, 0.1)!).toGeoJSON(), { type: 'LineString', coordinates: [[0, 0], [2, 0]] }, 'WKB in, WKB out')
})

t.test('a shapefile read with a tolerance gives simplified geometries; without one every vertex', async (t) => {
  const dir = tempDir(t, 'shp')
  const coords = Array.from({ length: 1000 }, (_, i) => [i / 100, Math.sin(i / 100)])
  writeShapefile(dir, 'wave', { type: 'polyline', fields: [{ name: 'n', type: 'N', length: 4 }], features: [{ geometry: { type: 'LineString', coordinates: coords }, values: [1] }], prj: ESRI_WGS84_PRJ })
  const shp = createShapefileSource({ path: path.join(dir, 'wave.shp'), charset: 'ISO-8859-1', fetchSize: 10 })
  t.teardown(() => shp.close())
  const read = async (simplify?: number) => {
    const out: Feature[] = []
    for await (const f of shp.readFeatures({ type: 'wave', ...(simplify ? { simplify } : {}) })) out.push(f)
    const g = wkx.Geometry.parse(out[0].geometry as Buffer).toGeoJSON() as { type: string, coordinates: any }
    return (g.type === 'MultiLineString' ? g.coordinates[0] : g.coordinates) as number[][] // a shapefile's polyline is read as a MultiLineString
  }
  t.equal((await read()).length, 1000, 'every vertex without a tolerance')
  const simple = await read(0.01)
  t.ok(simple.length < 100 && simple.length >= 2, `${simple.length} vertices at 0.01`)
  t.same([simple[0], simple[simple.length - 1]], [coords[0], coords[999]], 'the ends kept')
  await t.rejects(async () => { for await (const _ of shp.readFeatures({ type: 'wave', simplify: -1 })) break }, /simplification tolerance must be a number of at least 0/)
})
