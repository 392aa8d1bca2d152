// The admin page's vector layer list in a real browser (Debian's chromium through playwright-core,
// as test/e2e/web.test.ts): an administrator sees each vector layer with its geometry type, feature
// count and bounds; a user the layer rules keep out of a layer does not see it. The vector-tile
// preview: the layer's MVT tiles decoded in the browser and drawn in its SLD's colours where the
// features are, and the toggle back to the server's PNG tiles. Fails (never skips) when chromium is missing.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Fastify from 'fastify'
import sharp from 'sharp'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import mapwarden from '../../plugins/app.js'
import { ADMIN, ADMIN_PASSWORD, BASE, tempDir } from '../helper.js'
import { writeGeoPackage } from '../fixtures/vector/files.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const WAIT = { timeout: 120_000 } // an upper bound for a loaded 2-core machine, not a measurement
t.setTimeout(300_000)

/** A listening mapwarden with a harvest root, and its admin REST caller; undefined without Chromium. */
async function start (t: Test): Promise<{ root: string, origin: string, rest: (method: string, url: string, body: string, type?: string) => Promise<void> } | undefined> {
  if (!fs.existsSync(CHROMIUM)) {
    t.fail(`${CHROMIUM} is missing: run scripts/install-chromium.sh`)
    return undefined
  }
  const root = tempDir(t, 'harvest')
  const server = Fastify({ logger: false })
  await server.register(mapwarden, { prefix: BASE, env: {}, dataDir: tempDir(t, 'mw-e2e'), harvestRoots: [root], adminPassword: ADMIN_PASSWORD, announce: () => {}, taskSlots: 1 })
  await server.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => server.close())
  const origin = `http://127.0.0.1:${(server.server.address() as import('node:net').AddressInfo).port}`
  const rest = async (method: string, url: string, body: string, type = 'application/json') => {
    const res = await fetch(`${origin}${BASE}${url}`, { method, headers: { ...ADMIN, 'content-type': type }, body })
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
  }
  return { root, origin, rest }
}

t.test('the vector layer list of the admin page', async (t) => {
  const started = await start(t)
  if (!started) return
  const { root, origin, rest } = started
  writeGeoPackage(path.join(root, 'city.gpkg'), [
    { name: 'places', columns: ['name TEXT'], geometryColumn: 'geom', geometryType: 'POINT', rows: [['A', -10, -5], ['B', 20, 40]].map(([n, x, y]) => ({ values: [n], geometry: { type: 'Point', coordinates: [x, y] } })) },
    { name: 'parcels', columns: ['kind TEXT'], geometryColumn: 'geom', geometryType: 'POLYGON', rows: [{ values: ['field'], geometry: { type: 'Polygon', coordinates: [[[1, 2], [3, 2], [3, 4], [1, 4], [1, 2]]] } }] }
  ])
  await rest('POST', '/rest/workspaces', JSON.stringify({ workspace: { name: 'vx' } }))
  await rest('POST', '/rest/workspaces/vx/datastores', JSON.stringify({ dataStore: { name: 'city', connectionParameters: { dbtype: 'geopkg', database: `file:${path.join(root, 'city.gpkg')}` } } }))
  await rest('POST', '/rest/workspaces/vx/datastores/city/featuretypes', JSON.stringify({ featureType: { name: 'places' } }))
  await rest('POST', '/rest/workspaces/vx/datastores/city/featuretypes', JSON.stringify({ featureType: { name: 'parcels' } }))
  await rest('POST', '/rest/security/usergroup/users', JSON.stringify({ user: { userName: 'outsider', password: 'outsider-password', enabled: true } }))
  await rest('POST', '/rest/security/acl/layers.json', '{"vx.parcels.r":"ROLE_READER"}')

  const contexts: BrowserContext[] = []
  const profiles: string[] = []
  t.teardown(async () => {
    for (const c of contexts) await c.close()
    for (const p of profiles) fs.rmSync(p, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
  })
  const rows = async (username: string, password: string) => {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'))
    profiles.push(profile)
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, httpCredentials: { username, password } })
    contexts.push(context)
    const page = context.pages()[0] ?? await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(e.message))
    await page.goto(`${origin}${BASE}/web/`)
    await page.waitForSelector('body[data-ready="true"]', WAIT)
    const cells = await page.$$eval('#vector-layers tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)))
    return { cells, problems }
  }

  const admin = await rows('admin', ADMIN_PASSWORD)
  t.same(admin.cells, [
    ['vx:parcels', 'POLYGON', '1', '1, 2, 3, 4', 'EPSG:4326'],
    ['vx:places', 'POINT', '2', '-10, -5, 20, 40', 'EPSG:4326']
  ])
  t.same(admin.problems, [])
  const outsider = await rows('outsider', 'outsider-password')
  t.same(outsider.cells.map((c) => c[0]), ['vx:places'], 'a layer the user may not read is not listed')
  t.same(outsider.problems, [])
})

const MAGENTA_SLD = `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc">
  <NamedLayer><Name>parcels</Name><UserStyle><Title>magenta</Title><FeatureTypeStyle><Rule>
    <PolygonSymbolizer><Fill><CssParameter name="fill">#ff00ff</CssParameter></Fill>
      <Stroke><CssParameter name="stroke">#00ffff</CssParameter><CssParameter name="stroke-width">2</CssParameter></Stroke></PolygonSymbolizer>
  </Rule></FeatureTypeStyle></UserStyle></NamedLayer>
</StyledLayerDescriptor>`

/** Shares of the map's pixels near a colour: over all of it, in its middle fifth, and at its corners. */
async function colourAt (page: Page, c: number[]): Promise<{ all: number, middle: number, corners: number }> {
  const png = await page.locator('#map').screenshot()
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const near = (x: number, y: number) => {
    const p = (y * info.width + x) * info.channels
    return Math.abs(data[p] - c[0]) + Math.abs(data[p + 1] - c[1]) + Math.abs(data[p + 2] - c[2]) <= 30
  }
  let all = 0; let middle = 0; let middleN = 0; let corners = 0
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const hit = near(x, y)
      if (hit) all++
      if (Math.abs(x - info.width / 2) < info.width / 10 && Math.abs(y - info.height / 2) < info.height / 10) { middleN++; if (hit) middle++ }
    }
  }
  for (const [x, y] of [[4, 4], [info.width - 5, 4], [4, info.height - 5], [info.width - 5, info.height - 5]]) if (near(x, y)) corners++
  return { all: all / (info.width * info.height), middle: middle / middleN, corners }
}

/** Screenshots the map until the colour covers its middle (bounded). */
async function waitForColour (page: Page, c: number[]): Promise<{ all: number, middle: number, corners: number }> {
  let last = { all: 0, middle: 0, corners: 0 }
  for (let i = 0; i < 120; i++) {
    last = await colourAt(page, c)
    if (last.middle > 0.9) return last
    await page.waitForTimeout(500)
  }
  return last
}

t.test('the vector-tile preview draws the features in the style\'s colours; the toggle goes back to PNG tiles', async (t) => {
  const started = await start(t)
  if (!started) return
  const { root, origin, rest } = started
  writeGeoPackage(path.join(root, 'city.gpkg'), [
    { name: 'parcels', columns: ['kind TEXT'], geometryColumn: 'geom', geometryType: 'POLYGON', rows: [{ values: ['field'], geometry: { type: 'Polygon', coordinates: [[[1, 2], [3, 2], [3, 4], [1, 4], [1, 2]]] } }] }
  ])
  await rest('POST', '/rest/workspaces', JSON.stringify({ workspace: { name: 'vx' } }))
  await rest('POST', '/rest/workspaces/vx/datastores', JSON.stringify({ dataStore: { name: 'city', connectionParameters: { dbtype: 'geopkg', database: `file:${path.join(root, 'city.gpkg')}` } } }))
  await rest('POST', '/rest/workspaces/vx/datastores/city/featuretypes', JSON.stringify({ featureType: { name: 'parcels' } }))
  await rest('POST', '/rest/workspaces/vx/styles?name=magenta', MAGENTA_SLD, 'application/vnd.ogc.sld+xml')
  await rest('PUT', '/rest/layers/vx:parcels', JSON.stringify({ layer: { defaultStyle: { name: 'vx:magenta' } } }))

  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'))
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, httpCredentials: { username: 'admin', password: ADMIN_PASSWORD }, viewport: { width: 1280, height: 900 } })
  t.teardown(async () => { await context.close(); fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }) })
  const page = context.pages()[0] ?? await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(e.message))
  const tiles: Array<{ format: string, set: string, status: number }> = []
  page.on('response', (r) => {
    const u = new URL(r.url())
    // OpenLayers' WMTS source writes Request and Format, the vector-tile view REQUEST and FORMAT.
    const q = new Map([...u.searchParams].map(([k, v]) => [k.toUpperCase(), v]))
    if (u.pathname.endsWith('/gwc/service/wmts') && q.get('REQUEST') === 'GetTile') tiles.push({ format: q.get('FORMAT') ?? '', set: q.get('TILEMATRIXSET') ?? '', status: r.status() })
  })
  await page.goto(`${origin}${BASE}/web/`)
  await page.waitForSelector('body[data-ready="true"]', WAIT)
  // The page opens on the layer's PNG tiles in EPSG:900913; the vector view, then EPSG:4326.
  await page.selectOption('#layer', 'vx:parcels')
  t.equal(await page.$eval('#service option[value="MVT"]', (o) => (o as HTMLOptionElement).disabled), false, 'a vector layer offers vector tiles')
  await page.selectOption('#service', 'MVT')
  await page.selectOption('#gridset', 'EPSG:4326')
  const mvt = await waitForColour(page, [255, 0, 255])
  t.ok(mvt.middle > 0.9, `vector tiles: ${(mvt.middle * 100).toFixed(0)}% of the map's middle (inside the parcel) is the style's fill`)
  t.equal(mvt.corners, 0, 'the corners (outside the parcel) are not')
  const cyan = await colourAt(page, [0, 255, 255])
  t.ok(cyan.all > 0, 'the outline in the style\'s stroke colour')
  const mvtTiles = tiles.filter((x) => x.format === 'application/vnd.mapbox-vector-tile')
  t.ok(mvtTiles.length > 0 && mvtTiles.some((x) => x.status === 200), `${mvtTiles.length} MVT tiles asked of the WMTS`)
  t.equal(tiles.filter((x) => x.format === 'image/png' && x.set === 'EPSG:4326').length, 0, 'no PNG tile in the vector view')

  // The toggle back: the server's PNG tiles of the same style.
  const pngTile = page.waitForResponse((r) => /[?&]Format=image%2Fpng/i.test(r.url()) && /TileMatrixSet=EPSG%3A4326/i.test(r.url()), WAIT)
  await page.selectOption('#service', 'WMTS')
  await pngTile
  const png = await waitForColour(page, [255, 0, 255])
  t.ok(png.middle > 0.9, `PNG tiles: ${(png.middle * 100).toFixed(0)}% of the map's middle in the fill`)
  t.ok(tiles.some((x) => x.format === 'image/png' && x.set === 'EPSG:4326' && x.status === 200), 'PNG tiles asked')
  t.same(problems, [])
})
