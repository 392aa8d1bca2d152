import t from 'tap'
import { GRID_SETS, closestRectangle, gridSubset, tilesHigh, tilesWide } from '../../../services/tilecache/grid-sets.js'
import { countTiles, metaTileIterator, tileRange } from '../../../services/tilecache/tile-range.js'
import { rectArea } from '../../../services/tilecache/grid-sets.js'

const g4326 = GRID_SETS['EPSG:4326']
const g900913 = GRID_SETS['EPSG:900913']

t.test('EPSG:4326 matches GeoWebCache: 2x1 tiles at level 0, resolutions and scale denominators of the table', async (t) => {
  t.equal(g4326.resolutions.length, 22)
  t.same([tilesWide(g4326, 0), tilesHigh(g4326, 0)], [2, 1])
  t.same([tilesWide(g4326, 20), tilesHigh(g4326, 20)], [2097152, 1048576])
  t.equal(g4326.resolutions[10], 0.0006866455078125)
  t.ok(Math.abs(g4326.scaleDenominators[0] - 279541132.0143589) < 1e-6)
  t.ok(Math.abs(g4326.scaleDenominators[21] - 133.2955989906115) < 1e-9)
})

t.test('EPSG:900913 matches GeoWebCache: 31 levels, 1x1 at level 0, scale denominators of the table', async (t) => {
  t.equal(g900913.resolutions.length, 31)
  t.same([tilesWide(g900913, 0), tilesHigh(g900913, 0)], [1, 1])
  t.same([tilesWide(g900913, 18), tilesHigh(g900913, 18)], [2 ** 18, 2 ** 18])
  t.ok(Math.abs(g900913.scaleDenominators[0] - 559082263.9508929) < 1e-6)
  t.ok(Math.abs(g900913.scaleDenominators[18] - 2132.7295835529058) < 1e-9)
  t.ok(Math.abs(g900913.resolutions[28] - 5.831682455027476E-4) < 1e-18)
})

t.test('GWC worked example (world, EPSG:4326, z 0-2) counts 42 tiles without metatile padding (GWC pads to 50)', async (t) => {
  const range = tileRange(gridSubset(g4326, undefined), 0, 2)
  t.equal(countTiles(range), 42n)
})

t.test('a bounded request counts only the tiles it touches inside the layer coverage', async (t) => {
  // GWC doc example bounds (-124,22,66,72) at z 1 (90 degree tiles): x 0..2, y 1..1.
  t.same(closestRectangle(g4326, 1, [-124, 22, 66, 72]), [0, 1, 2, 1])
  const layer = gridSubset(g4326, [-10, -10, 10, 10])
  const range = tileRange(layer, 0, 3, [-124, 22, 66, 72])
  // z0 layer [0,0,1,0] ∩ req [0,0,1,0] = 2; z1 layer [1,0,2,1] ∩ [0,1,3,1] = 2; z2 layer [3,1,4,2] ∩ [1,2,6,2] = 2; z3 layer [7,3,8,4] ∩ [3,4,13,5] = 2
  t.equal(countTiles(range), 8n)
})

t.test('a world seed to zoom 20 (and EPSG:900913 to zoom 30) is counted exactly without enumeration', async (t) => {
  const world = tileRange(gridSubset(g4326, undefined), 0, 20)
  let expect = 0n
  for (let z = 0; z <= 20; z++) expect += 2n ** BigInt(2 * z + 1)
  t.equal(countTiles(world), expect)
  const merc = tileRange(gridSubset(g900913, undefined), 0, 30)
  let m = 0n
  for (let z = 0; z <= 30; z++) m += 4n ** BigInt(z)
  t.equal(countTiles(merc), m)
})

t.test('the metatile iterator visits every tile of the range exactly once, 4x4 aligned, bottom row first', async (t) => {
  const range = tileRange(gridSubset(g4326, [-50, -30, 40, 60]), 0, 5)
  const it = metaTileIterator(range)
  const seen = new Set<string>()
  let first
  for (let mt = it.next(); mt; mt = it.next()) {
    first ??= mt
    t.equal(mt.render[0] % 4 === 0 || mt.render[0] === range.subset.coverage(mt.z)![0], true)
    for (let y = mt.wanted[1]; y <= mt.wanted[3]; y++) {
      for (let x = mt.wanted[0]; x <= mt.wanted[2]; x++) {
        const k = `${mt.z}/${x}/${y}`
        t.notOk(seen.has(k), k)
        seen.add(k)
      }
    }
    t.ok(rectArea(mt.render) <= 16)
  }
  t.equal(BigInt(seen.size), countTiles(range))
  t.equal(first!.z, 0)
})
