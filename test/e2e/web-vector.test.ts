// The admin page's vector layer list in a real browser (Debian's chromium through playwright-core,
// as test/e2e/web.test.ts): an administrator sees each vector layer with its geometry type, feature
// count and bounds; a user the layer rules keep out of a layer does not see it. Fails (never skips)
// when chromium is missing.
import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Fastify from 'fastify'
import { chromium, type BrowserContext } from 'playwright-core'
import mapwarden from '../../plugins/app.js'
import { ADMIN, ADMIN_PASSWORD, BASE, tempDir } from '../helper.js'
import { writeGeoPackage } from '../fixtures/vector/files.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const WAIT = { timeout: 120_000 } // an upper bound for a loaded 2-core machine, not a measurement
t.setTimeout(300_000)

t.test('the vector layer list of the admin page', async (t) => {
  if (!fs.existsSync(CHROMIUM)) {
    t.fail(`${CHROMIUM} is missing: run scripts/install-chromium.sh`)
    return
  }
  const root = tempDir(t, 'harvest')
  const server = Fastify({ logger: false })
  await server.register(mapwarden, { prefix: BASE, env: {}, dataDir: tempDir(t, 'mw-e2e'), harvestRoots: [root], adminPassword: ADMIN_PASSWORD, announce: () => {}, taskSlots: 1 })
  await server.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => server.close())
  const origin = `http://127.0.0.1:${(server.server.address() as import('node:net').AddressInfo).port}`
  const rest = async (method: string, url: string, body: string) => {
    const res = await fetch(`${origin}${BASE}${url}`, { method, headers: { ...ADMIN, 'content-type': 'application/json' }, body })
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
  }
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
