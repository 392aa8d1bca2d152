// Seeding by area: POST seed/<layer>/area.json with a GeoJSON Polygon or MultiPolygon renders and
// counts only the metatiles that touch the shape (checked against a brute-force count made here
// with another intersection test), truncates only those, and a reseed with olderThan re-renders
// only metatiles holding tiles older than the date.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { boxMeets, type Ring } from '../../fixtures/seed/area-brute.js'
import { GRID_SETS, closestRectangle, gridSubset, intersectRect, rectBounds, type BBox, type GridSet, type Rect } from '../../../services/tilecache/grid-sets.js'

const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
const LAYER_BOX: BBox = [-20, -10, 20, 30]

function files (dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort()
}

/** Tiles the request counts (wanted) and the tiles rendered (whole metatiles in the coverage). */
function expected (gs: GridSet, rings: Ring[], zooms: [number, number]): { wanted: number, written: number, perZoom: Map<number, Set<string>>, wantedTiles: Set<string> } {
  const subset = gridSubset(gs, LAYER_BOX)
  const bb: BBox = [Infinity, Infinity, -Infinity, -Infinity]
  for (const r of rings) for (const [x, y] of r) { bb[0] = Math.min(bb[0], x); bb[1] = Math.min(bb[1], y); bb[2] = Math.max(bb[2], x); bb[3] = Math.max(bb[3], y) }
  const e = subset.extent
  const bounds: BBox = [Math.max(e[0], bb[0]), Math.max(e[1], bb[1]), Math.min(e[2], bb[2]), Math.min(e[3], bb[3])]
  let wanted = 0; let written = 0
  const perZoom = new Map<number, Set<string>>()
  const wantedTiles = new Set<string>()
  for (let z = zooms[0]; z <= zooms[1]; z++) {
    const cov = subset.coverage(z)!
    const r = intersectRect(cov, closestRectangle(gs, z, bounds))
    const set = new Set<string>()
    perZoom.set(z, set)
    if (!r) continue
    for (let my = r[1] - (r[1] % 4); my <= r[3]; my += 4) {
      for (let mx = r[0] - (r[0] % 4); mx <= r[2]; mx += 4) {
        const block: Rect = [mx, my, mx + 3, my + 3]
        const w = intersectRect(block, r)
        if (!w || !boxMeets(rings, rectBounds(gs, z, w))) continue
        wanted += (w[2] - w[0] + 1) * (w[3] - w[1] + 1)
        for (let x = w[0]; x <= w[2]; x++) for (let y = w[1]; y <= w[3]; y++) wantedTiles.add(`${z}/${x}/${y}.png`)
        const rend = intersectRect(block, cov)!
        for (let x = rend[0]; x <= rend[2]; x++) for (let y = rend[1]; y <= rend[3]; y++) set.add(`${z}/${x}/${y}.png`)
        written += (rend[2] - rend[0] + 1) * (rend[3] - rend[1] + 1)
      }
    }
  }
  return { wanted, written, perZoom, wantedTiles }
}

// A concave shape (an L with a notch) and a hole: gaps inside and outside both occur.
const L: Ring = [[-17.3, -7.9], [13.7, -7.9], [13.7, -1.3], [-3.1, -1.3], [-3.1, 26.2], [-17.3, 26.2], [-17.3, -7.9]]
const HOLE: Ring = [[-15.2, 5.1], [-6.4, 5.1], [-6.4, 18.7], [-15.2, 18.7], [-15.2, 5.1]]
const TRIANGLE: Ring = [[4.2, 8.1], [18.9, 9.7], [11.1, 28.3], [4.2, 8.1]]

t.test('a polygon seed renders only the metatiles touching the shape, counted exactly; the links resolve to the task', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, LAYER_BOX, pattern) })
  const body = { seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 3, zoomStop: 7, format: 'image/png', type: 'seed', threadCount: 2 }, geometry: { type: 'Polygon', coordinates: [L, HOLE] } }
  const res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}/area.json`, headers: JSON_TYPE, payload: JSON.stringify(body) })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.body, '')
  const links = [res.headers.link].flat() as string[]
  t.equal(links.length, 2)
  await app.tileCache.breeder.idle()
  const want = expected(GRID_SETS['EPSG:4326'], [L, HOLE], [3, 7])
  const dir = path.join(app.config.dataDir, 'tiles/topp/world/EPSG_4326/png/default')
  const got = files(dir)
  t.same(got, [...want.perZoom.values()].flatMap((s) => [...s]).sort(), 'exactly the tiles of the touching metatiles')
  t.equal(got.length, want.written)
  // The whole box of the shape would have been more: the hole and the notch were skipped.
  t.ok(want.wanted < 700, `${want.wanted} tiles`)
  let sum = 0
  for (const link of links) {
    const url = /^<http:\/\/[^/]+([^>]+)>/.exec(link)![1]
    const task = (await app.inject({ method: 'GET', url, headers: ADMIN })).json().task
    // Top level: this task's own share; under request: the whole request's sum.
    t.match(task, { state: 'done', type: 'seed', tilesTotal: task.tilesDone, tilesRemaining: 0, request: { tilesTotal: want.wanted, tilesRemaining: 0 } })
    sum += task.tilesDone
  }
  t.equal(sum, want.wanted, 'progress counts the tiles of the touching metatiles')
  const whole = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { ...body.seedRequest, zoomStart: 7, zoomStop: 7, bounds: { coords: { double: [-17.3, -7.9, 13.7, 26.2] } } } }) })
  t.equal(whole.statusCode, 200)
  await app.tileCache.breeder.idle()
  t.ok(files(dir).length > got.length, 'the same box as a plain seed writes more')

  // Truncate by another shape (a MultiPolygon in the grid set's CRS): only its metatiles go.
  const before = new Set(files(dir))
  const tri = { type: 'MultiPolygon', crs: { type: 'name', properties: { name: 'EPSG:4326' } }, coordinates: [[TRIANGLE]] }
  const trunc = await app.inject({ method: 'POST', url: `${BASE}/tilecache/rest/seed/${layer}/area.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 3, zoomStop: 7, type: 'truncate' }, geometry: tri }) })
  t.equal(trunc.statusCode, 200, trunc.body)
  await app.tileCache.breeder.idle()
  const hit = expected(GRID_SETS['EPSG:4326'], [TRIANGLE], [3, 7])
  const after = files(dir)
  t.ok([...before].some((f) => hit.wantedTiles.has(f)), 'some cached tiles were in the triangle')
  t.same(after, [...before].filter((f) => !hit.wantedTiles.has(f)).sort(), 'exactly the cached tiles of its metatiles (within its box) are gone')
  const task = (await app.inject({ method: 'GET', url: /^<http:\/\/[^/]+([^>]+)>/.exec(String(trunc.headers.link))![1], headers: ADMIN })).json().task
  t.equal(task.tilesDone, before.size - after.length, 'the truncate counts what it deleted')
})

t.test('in EPSG:900913 a MultiPolygon in lon/lat or in the grid CRS selects the same metatiles', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, LAYER_BOX, pattern) })
  const gs = GRID_SETS['EPSG:900913']
  const merc = (r: Ring): Ring => r.map(([x, y]) => [x * 20037508.34 / 180, Math.log(Math.tan((90 + y) * Math.PI / 360)) * 6378137])
  const seedRequest = { gridSetId: 'EPSG:900913', zoomStart: 2, zoomStop: 6, format: 'image/png', type: 'seed', threadCount: 1 }
  let res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}/area.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest, geometry: { type: 'MultiPolygon', coordinates: [[TRIANGLE], [HOLE]] } }) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  const want = expected(gs, [merc(TRIANGLE), merc(HOLE)], [2, 6])
  const dir = path.join(app.config.dataDir, 'tiles/topp/world/EPSG_900913/png/default')
  t.same(files(dir), [...want.perZoom.values()].flatMap((s) => [...s]).sort())
  const id = /tasks\/(\d+)\.json/.exec(String(res.headers.link))![1]
  t.match((await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/seed/tasks/${id}.json`, headers: ADMIN })).json().task, { tilesTotal: want.wanted })

  // The same shape in the grid set's CRS: a seed finds every tile cached and renders nothing new.
  res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}/area.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest, geometry: { type: 'MultiPolygon', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::3857' } }, coordinates: [[merc(TRIANGLE)], [merc(HOLE)]] } }) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  const id2 = /tasks\/(\d+)\.json/.exec(String(res.headers.link))![1]
  t.match((await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/seed/tasks/${id2}.json`, headers: ADMIN })).json().task, { tilesTotal: want.wanted, state: 'done' })
  t.equal(files(dir).length, want.written)
})

t.test('a reseed with olderThan re-renders only the metatiles holding tiles older than the date', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, LAYER_BOX, pattern) })
  const geometry = { type: 'Polygon', coordinates: [[[-19, -9], [19, -9], [19, 29], [-19, 29], [-19, -9]]] }
  const seedRequest = { gridSetId: 'EPSG:4326', zoomStart: 5, zoomStop: 5, format: 'image/png', type: 'seed', threadCount: 1 }
  let res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}/area.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest, geometry }) })
  t.equal(res.statusCode, 200)
  await app.tileCache.breeder.idle()
  const dir = path.join(app.config.dataDir, 'tiles/topp/world/EPSG_4326/png/default')
  const all = files(dir)
  t.ok(all.length > 16, `${all.length} tiles in several metatiles`)
  // Age one metatile's tiles (those with x, y in the first metatile block) to 2020.
  const old = new Date('2020-01-01T00:00:00Z')
  const first = all.map((f) => f.split(/[/.]/).map(Number)).filter(([, x, y]) => Math.floor(x / 4) === Math.floor(all.map((f) => Number(f.split('/')[1])).sort((a, b) => a - b)[0] / 4) && y === Math.min(...all.map((g) => Number(g.split('/')[2].split('.')[0]))))
  t.ok(first.length > 0)
  const aged = first.map(([z, x, y]) => `${z}/${x}/${y}.png`)
  for (const f of aged) fs.utimesSync(path.join(dir, f), old, old)
  const mtimes = new Map(all.map((f) => [f, fs.statSync(path.join(dir, f)).mtimeMs]))
  res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}/area.json?olderThan=2021-06-01`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { ...seedRequest, type: 'reseed' }, geometry }) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  for (const f of all) {
    const now = fs.statSync(path.join(dir, f)).mtimeMs
    if (aged.includes(f)) t.ok(now > old.getTime(), `${f} re-rendered`)
    else if (!aged.some((a) => { const [, ax, ay] = a.split(/[/.]/).map(Number); const [, fx, fy] = f.split(/[/.]/).map(Number); return Math.floor(ax / 4) === Math.floor(fx / 4) && Math.floor(ay / 4) === Math.floor(fy / 4) })) {
      t.equal(now, mtimes.get(f), `${f} left alone`)
    }
  }
  // In the body instead of the query: the same; both at once is refused.
  res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}/area.json?olderThan=2021-06-01`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { ...seedRequest, type: 'reseed' }, geometry, olderThan: '2021-06-01T00:00:00Z' }) })
  t.equal(res.statusCode, 400)
  t.match(res.body, /olderThan/)
})

t.test('a bad area request is a 400 naming the problem, and creates no task', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(20, 20, LAYER_BOX, pattern) })
  const seedRequest = { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 3, type: 'seed' }
  const square = { type: 'Polygon', coordinates: [[[0, 0], [5, 0], [5, 5], [0, 5], [0, 0]]] }
  const cases: Array<[unknown, RegExp, string?]> = [
    [{ seedRequest }, /geometry/],
    [{ seedRequest, geometry: { type: 'Point', coordinates: [0, 0] } }, /geometry.*Polygon or MultiPolygon/],
    [{ seedRequest, geometry: { type: 'Polygon', coordinates: [[[0, 0], [5, 0], [5, 5], [0, 5]]] } }, /ends where it starts/],
    [{ seedRequest, geometry: { type: 'Polygon', coordinates: [[[0, 0], [5, 0], ['5', 5], [0, 5], [0, 0]]] } }, /finite numbers/],
    [{ seedRequest, geometry: { ...square, crs: { type: 'name', properties: { name: 'EPSG:900913' } } } }, /grid set is EPSG:4326/],
    [{ seedRequest, geometry: { type: 'Polygon', coordinates: [[[100, 60], [120, 60], [120, 70], [100, 60]]] } }, /does not intersect the layer's extent/],
    [{ seedRequest, geometry: { type: 'Polygon', coordinates: [[[200, 0], [205, 0], [205, 5], [200, 0]]] } }, /longitude, latitude/],
    [{ seedRequest, geometry: square, extra: 1 }, /unknown field extra/],
    [{ seedRequest, geometry: square, olderThan: '2021-01-01' }, /olderThan.*applies to a reseed/],
    [{ seedRequest: { ...seedRequest, type: 'reseed' }, geometry: square, olderThan: 'yesterday' }, /olderThan.*ISO 8601/],
    [{ seedRequest: { ...seedRequest, zoomStart: 9, zoomStop: 2 }, geometry: square }, /zoomStart/],
    [{ geometry: square }, /seedRequest/]
  ]
  for (const [body, message] of cases) {
    const res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}/area.json`, headers: JSON_TYPE, payload: JSON.stringify(body) })
    t.equal(res.statusCode, 400, JSON.stringify(body).slice(0, 120))
    t.match(res.headers['content-type'], /^text\/plain/)
    t.match(res.body, message)
  }
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/seed/tasks/1.json`, headers: ADMIN })).statusCode, 404, 'no task was created')
  const anon = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}/area.json`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ seedRequest, geometry: square }) })
  t.equal(anon.statusCode, 401)
})

t.test('to zoom 20 an axis-aligned rectangle counts exactly the tiles of the same box as bounds', async (t) => {
  const app = await build(t, { taskSlots: 1 })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(20, 20, LAYER_BOX, pattern) })
  const box = [-7.3, 2.2, 11.9, 17.6]
  const seedRequest = { gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop: 20, format: 'image/png', type: 'seed', threadCount: 1 }
  const totalOf = async (res: { headers: Record<string, unknown> }) => {
    const id = /tasks\/(\d+)\.json/.exec(String(res.headers.link))![1]
    const task = (await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/seed/tasks/${id}.json`, headers: ADMIN })).json().task
    await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed`, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'kill_all=all' })
    await app.tileCache.breeder.idle()
    return task.tilesTotal
  }
  const ring = [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]], [box[0], box[1]]]
  const area = await totalOf(await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}/area.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest, geometry: { type: 'Polygon', coordinates: [ring] } }) }))
  const merc = (lon: number, lat: number) => [lon * 20037508.34 / 180, Math.log(Math.tan((90 + lat) * Math.PI / 360)) * 6378137]
  const [x0, y0] = merc(box[0], box[1]); const [x1, y1] = merc(box[2], box[3])
  const plain = await totalOf(await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { ...seedRequest, bounds: { coords: { double: [x0, y0, x1, y1] } } } }) }))
  t.ok(Number(plain) > 1e8, `${plain} tiles`)
  t.equal(String(area), String(plain))
})
