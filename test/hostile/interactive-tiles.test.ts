// Interactive tiles under ordinary concurrency (issue: hostile round two, 1): on-demand renders wait
// in a queue sized for maps being panned (MAPWARDEN_TILE_QUEUE), go ahead of seeding, and only past
// that capacity does a tile request answer 503, with Retry-After. One metatile asked for many times
// at once is rendered once.
import t from 'tap'
import { build, ADMIN, BASE } from '../helper.js'
import { createMosaic, pattern, rgbTiff } from '../fixtures/seed/mosaic.js'
import { TASKS_PER_THREAD } from '../../services/render/render-pool.js'

const XYZ = `${BASE}/gwc/service/xyz`
const BBOX: [number, number, number, number] = [-180, -85, 180, 85]

/** Distinct tiles of distinct metatiles (4x4 tiles each) at zoom z in EPSG:900913. */
function distinctTiles (layer: string, z: number, n: number): string[] {
  const out: string[] = []
  for (let i = 0; out.length < n; i++) out.push(`${XYZ}/${layer}/EPSG:900913/${z}/${(i * 4) % 2 ** z}/${Math.floor((i * 4) / 2 ** z) * 4 % 2 ** z}.png`)
  return out
}

async function countRenders (app: any): Promise<() => number> {
  let n = 0
  const prepare = app.mosaics.prepareRender.bind(app.mosaics)
  app.mosaics.prepareRender = async (req: unknown) => { n++; return await prepare(req) }
  return () => n
}

t.test('8 and then 40 concurrent requests of distinct uncached tiles all answer 200', async (t) => {
  const app = await build(t, { workerThreads: 2 })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(256, 128, BBOX, pattern) })
  for (const [z, n] of [[4, 8], [6, 40]]) {
    const urls = distinctTiles(layer, z, n)
    t.equal(new Set(urls).size, n)
    const answers = await Promise.all(urls.map((url) => app.inject({ method: 'GET', url })))
    t.same(answers.map((r) => r.statusCode), urls.map(() => 200), `${n} at once`)
  }
})

t.test('a browser\'s 6 connections while a seed runs: all 200', async (t) => {
  const app = await build(t, { workerThreads: 1, taskSlots: 4 })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(256, 128, BBOX, pattern) })
  for (let i = 0; i < 4; i++) {
    const res = await app.inject({
      method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 12, format: 'image/png', type: 'seed', threadCount: 1 } })
    })
    t.equal(res.statusCode, 200)
  }
  const answers = await Promise.all(distinctTiles(layer, 7, 6).map((url) => app.inject({ method: 'GET', url })))
  t.same(answers.map((r) => r.statusCode), [200, 200, 200, 200, 200, 200])
  await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed`, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'kill_all=all' })
})

t.test('past the documented capacity: 503 with Retry-After and a message; the rest are served', async (t) => {
  const app = await build(t, { workerThreads: 1, tileQueue: 3 })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(256, 128, BBOX, pattern) })
  const answers = await Promise.all(distinctTiles(layer, 6, 12).map((url) => app.inject({ method: 'GET', url })))
  const ok = answers.filter((r) => r.statusCode === 200)
  const busy = answers.filter((r) => r.statusCode === 503)
  t.equal(ok.length + busy.length, 12, 'only 200 or 503')
  t.equal(ok.length, TASKS_PER_THREAD + 3, `the thread's ${TASKS_PER_THREAD} renders at once and three waiting are served`)
  for (const r of busy) {
    t.equal(r.headers['retry-after'], '1')
    t.equal(r.body, 'The render queue is full; try again later')
  }
  // What an operator's scrape shows of it.
  const metrics = (await app.inject({ method: 'GET', url: `${BASE}/metrics`, headers: ADMIN })).body
  t.match(metrics, new RegExp(`^mapwarden_render_queue_refused_total ${busy.length}$`, 'm'), 'the refusals are counted')
  t.match(metrics, new RegExp(`^mapwarden_tile_requests_total\\{service="xyz",result="miss"\\} ${ok.length}$`, 'm'), 'the tiles served')
})

t.test('one metatile requested 16 times at once is rendered once', async (t) => {
  const app = await build(t, { workerThreads: 2 })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(256, 128, BBOX, pattern) })
  const renders = await countRenders(app)
  // The 16 tiles of metatile (8..11, 4..7) at zoom 5.
  const urls: string[] = []
  for (let x = 8; x < 12; x++) for (let y = 4; y < 8; y++) urls.push(`${XYZ}/${layer}/EPSG:900913/5/${x}/${y}.png`)
  const answers = await Promise.all(urls.map((url) => app.inject({ method: 'GET', url })))
  t.same(answers.map((r) => r.statusCode), urls.map(() => 200))
  t.equal(renders(), 1)
})
