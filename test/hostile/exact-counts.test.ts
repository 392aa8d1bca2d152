// Exact numbers (hostile round two, 5): every count above 2^53 is exact in every representation:
// the task list, the per-task resource in JSON and XML, its stored record, and the SSE stream.
import t from 'tap'
import http from 'node:http'
import { ADMIN, BASE } from '../helper.js'
import { hostileApp } from './refuse.js'
import { createMosaic, pattern, rgbTiff } from '../fixtures/seed/mosaic.js'
import { parseExact, stringifyExact } from '../../services/exact-json.js'
import { GRID_SETS, gridSubset } from '../../services/tilecache/grid-sets.js'
import { countTiles, tileRange } from '../../services/tilecache/tile-range.js'

const SEED = `${BASE}/gwc/rest/seed`
const BBOX: [number, number, number, number] = [-180, -85, 180, 85]
// The layer's tiles at zooms 0-30 of EPSG:900913: about 1.5e18, far past 2^53.
const WORLD_TO_30 = String(countTiles(tileRange(gridSubset(GRID_SETS['EPSG:900913'], BBOX), 0, 30)))

t.test('stringifyExact and parseExact keep every digit', async (t) => {
  const big = 18053587901014829n
  t.equal(stringifyExact({ a: big, b: 1, c: 'x' }), '{"a":18053587901014829,"b":1,"c":"x"}')
  t.same(parseExact(`{"a":18053587901014829,"b":[1,-9007199254740993],"c":"12345678901234567"}`), { a: big, b: [1, -9007199254740993n], c: '12345678901234567' })
  t.same(parseExact('{"error":"tile 12345678901234567, \\"quoted\\" 98765432109876543]","n":1.5e300}'), { error: 'tile 12345678901234567, "quoted" 98765432109876543]', n: 1.5e300 }, 'digits inside strings stay text')
})

t.test('a world seed to zoom 30: the exact total in seed.json, the task resource (JSON, XML), its record and the event stream', async (t) => {
  const { app, port } = await hostileApp(t, { taskSlots: 1, listen: true })
  const layer = await createMosaic(app, 'topp', 'world', { 'w.tif': rgbTiff(64, 32, BBOX, pattern) })
  t.ok(BigInt(WORLD_TO_30) > BigInt(Number.MAX_SAFE_INTEGER), `${WORLD_TO_30} tiles`)
  // Listen to the progress stream first.
  let events = ''
  const req = http.get({ port, host: '127.0.0.1', path: `${SEED}/events`, headers: ADMIN }, (res) => res.on('data', (d) => { events += d.toString() }))
  t.teardown(() => req.destroy())
  const res = await app.inject({
    method: 'POST', url: `${SEED}/${layer}.json`, headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop: 30, format: 'image/png', type: 'seed', threadCount: 1 } })
  })
  t.equal(res.statusCode, 200)
  for (let i = 0; i < 200 && !JSON.parse((await app.inject({ method: 'GET', url: `${SEED}/tasks/1.json`, headers: ADMIN })).body).task.state.startsWith('running'); i++) await new Promise((resolve) => setImmediate(resolve))
  const list = (await app.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })).body
  t.match(list, new RegExp(`^\\{"long-array-array":\\[\\[\\d+,${WORLD_TO_30},\\d+,1,1\\]\\]\\}$`))
  const json = (await app.inject({ method: 'GET', url: `${SEED}/tasks/1.json`, headers: ADMIN })).body
  t.match(json, `"tilesTotal":${WORLD_TO_30}`)
  t.equal((parseExact(json) as any).task.tilesTotal, BigInt(WORLD_TO_30))
  const xml = (await app.inject({ method: 'GET', url: `${SEED}/tasks/1.xml`, headers: ADMIN })).body
  t.match(xml, `<tilesTotal>${WORLD_TO_30}</tilesTotal>`)
  await app.inject({ method: 'POST', url: SEED, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'kill_all=all' })
  await app.tileCache.breeder.idle()
  // Killed: the resource now comes from the stored record.
  const stored = (await app.inject({ method: 'GET', url: `${SEED}/tasks/1.json`, headers: ADMIN })).body
  t.match(stored, `"tilesTotal":${WORLD_TO_30}`, 'the stored record keeps every digit')
  for (let i = 0; i < 200 && !events.includes(WORLD_TO_30); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  t.match(events, `"tilesTotal":${WORLD_TO_30}`, 'the event stream too')
})
