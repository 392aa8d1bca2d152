// Simplification to a map's pixel in JavaScript (services/vector/simplify.ts, run in the render
// thread by pixel-geometry.ts simplifyPixels), as PostGIS' ST_RemoveRepeatedPoints(ST_Simplify(g,
// tolerance, true)) does it for the PostGIS source: what is kept and what collapses; and a shapefile
// read with a tolerance checks it and answers every vertex (the render thread simplifies).
import t from 'tap'
import path from 'node:path'
import wkx from 'wkx'
import { tempDir } from '../../helper.js'
import { writeShapefile, ESRI_WGS84_PRJ } from '../../fixtures/vector/files.js'
import { simplifyLine, simplifyPolygon } from '../../../services/vector/simplify.js'
import { simplifyPixels, type Xy } from '../../../services/render/vector/pixel-geometry.js'
import { createShapefileSource } from '../../../services/vector/shapefile-source.js'
import type { Feature } from '../../../services/vector/source.js'

t.test('Douglas-Peucker keeps the points further than the tolerance and the ends', async (t) => {
  t.same(simplifyLine([[0, 0], [1, 0.05], [2, 0], [3, 2], [4, 0], [4, 0]], 0.1), [[0, 0], [2, 0], [3, 2], [4, 0]], 'a point 0.05 off dropped, a repeated end once')
  t.same(simplifyLine([[0, 0, 5], [1, 0, 6], [2, 0, 7]], 0.1), [[0, 0, 5], [2, 0, 7]], 'z rides along')
})

t.test('collapsed geometries stay visible as PostGIS preserveCollapsed keeps them; holes and lines of one point go', async (t) => {
  t.same(simplifyLine([[0, 0], [0.01, 0.01], [0.02, 0]], 1), [[0, 0], [0.02, 0]], 'a short line keeps its two ends')
  t.equal(simplifyLine([[5, 5], [5, 5]], 1), undefined, 'a line of one repeated point is gone')
  const tiny: Xy[] = [[0, 0], [0.01, 0], [0.01, 0.01], [0, 0.01], [0, 0]]
  t.equal(simplifyPolygon([tiny], 1)![0].length, 4, 'a polygon smaller than the tolerance keeps a closed triangle')
  const big: Xy[] = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]
  const hole: Xy[] = [[5, 5], [5.01, 5], [5.01, 5.01], [5, 5.01], [5, 5]]
  t.same(simplifyPolygon([big, hole], 1), [big], 'a hole smaller than the tolerance is dropped')
  const g = simplifyPixels({ points: [[1, 1]], lines: [[[0, 0], [1, 0.01], [2, 0]], [[3, 3], [3, 3]]], polygons: [[big], [tiny.map(([x, y]): Xy => [x + 20, y])]] }, 0.5)
  t.same(g, { points: [[1, 1]], lines: [[[0, 0], [2, 0]]], polygons: [[big], [[[20, 0], [20.01, 0.01], [20, 0.01], [20, 0]]]] }, 'pixel geometries: points as they are, a collapsed line dropped, each polygon of a multi-polygon kept')
})

t.test('a shapefile read with a tolerance checks it and answers every vertex', async (t) => {
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
  t.equal((await read(0.01)).length, 1000, 'and with one: the render thread simplifies')
  await t.rejects(async () => { for await (const _ of shp.readFeatures({ type: 'wave', simplify: -1 })) break }, /simplification tolerance must be a number of at least 0/)
})
