// The admin page end to end in a real browser: Debian's chromium (scripts/install-chromium.sh)
// driven by playwright-core against mapwarden listening on 127.0.0.1 with the demo mosaic. Log in,
// see the layer on the map, pick a time, start a seed from the form and watch it reach done, see
// the quota bar move, kill a task, draw footprints, browse the OpenAPI page; a user without read
// access does not see the layer. Fails (never skips) when chromium is missing: CI must run it.
import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Fastify from 'fastify'
import sharp from 'sharp'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import mapwarden from '../../plugins/app.js'
import { ADMIN, ADMIN_PASSWORD, BASE, basic, tempDir } from '../helper.js'
import { demoSld, demoZip } from '../../scripts/demo.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync']
const GET_TILE = /[?&]request=gettile(&|$)/i
const WAIT = { timeout: 120_000 } // an upper bound for a loaded 2-core machine, not a measurement

// The browser and the seeds share two cores with the rest of the suite: a generous bound.
t.setTimeout(600_000)

t.test('the admin page in a real browser', async (t) => {
  if (!fs.existsSync(CHROMIUM)) {
    t.fail(`${CHROMIUM} is missing: run scripts/install-chromium.sh`)
    return
  }
  const server = Fastify({ logger: false })
  await server.register(mapwarden, { prefix: BASE, env: {}, dataDir: tempDir(t, 'mw-e2e'), adminPassword: ADMIN_PASSWORD, announce: () => {}, taskSlots: 1 })
  await server.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => server.close())
  const origin = `http://127.0.0.1:${(server.server.address() as import('node:net').AddressInfo).port}`

  // The sample mosaic and a user without read access, through the REST API.
  const rest = async (method: string, url: string, body: string | Uint8Array, type: string) => {
    const res = await fetch(`${origin}${BASE}${url}`, { method, headers: { ...ADMIN, 'content-type': type }, body: body as BodyInit })
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
  }
  await rest('POST', '/rest/workspaces', '<workspace><name>demo</name></workspace>', 'text/xml')
  await rest('PUT', '/rest/workspaces/demo/coveragestores/watertemp/file.imagemosaic', await demoZip(), 'application/zip')
  await rest('POST', '/rest/security/usergroup/users', JSON.stringify({ user: { userName: 'outsider', password: 'outsider-password', enabled: true } }), 'application/json')
  await rest('POST', '/rest/security/acl/layers.json', '{"demo.*.r":"ROLE_READER"}', 'application/json')
  // The demo's water-temperature style (a ColorMap) as the layer's default: the page draws its legend.
  await rest('POST', '/rest/workspaces/demo/styles?name=watertemp', demoSld(), 'application/vnd.ogc.sld+xml')
  await rest('PUT', '/rest/layers/demo:watertemp', JSON.stringify({ layer: { defaultStyle: { name: 'demo:watertemp' } } }), 'application/json')

  const contexts: BrowserContext[] = []
  const profiles: string[] = []
  t.teardown(async () => {
    for (const c of contexts) await c.close()
    // chromium's helpers may still be writing for a moment after close
    for (const p of profiles) fs.rmSync(p, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
  })
  const open = async (username: string, password: string) => {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'))
    profiles.push(profile)
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: ARGS, httpCredentials: { username, password }, viewport: { width: 1280, height: 1000 }
    })
    contexts.push(context)
    const page = context.pages()[0] ?? await context.newPage()
    const problems: string[] = []
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()) })
    page.on('pageerror', (e) => problems.push(e.message))
    return { page, problems }
  }

  await t.test('an administrator sees the layer, seeds it, watches the quota and kills a task', async (t) => {
    const { page, problems } = await open('admin', ADMIN_PASSWORD)
    const tiles: number[] = []
    page.on('response', (r) => { if (GET_TILE.test(r.url())) tiles.push(r.status()) })
    await page.goto(`${origin}${BASE}/web/`)
    await page.waitForSelector('body[data-ready="true"]', WAIT)
    t.match(await page.textContent('#who'), 'admin (administrator)')
    t.same(await page.$$eval('#layer option', (o) => o.map((x) => (x as HTMLOptionElement).value)), ['demo:watertemp'])

    // The map shows non-blank tiles: most of the map differs from its empty background.
    const shot = await waitForTiles(page)
    const box0 = (await page.locator('#map').boundingBox())!
    // MAPWARDEN_E2E_SHOTS=<dir> keeps the screenshots for a person to look at.
    const shots = process.env.MAPWARDEN_E2E_SHOTS ?? tempDir(t, 'shots')
    fs.writeFileSync(path.join(shots, 'map.png'), shot.png)
    t.ok(shot.share > 0.2, `${(shot.share * 100).toFixed(0)}% of the map is tiles`)
    t.ok(tiles.length > 0 && tiles.every((s) => s === 200), `${tiles.length} WMTS GetTile answered 200`)

    // Context: the style's legend from its ColorMap, a scale line, the pointer's lon/lat.
    await page.waitForSelector('#legend[data-style="demo:watertemp"] ul.legend li', WAIT)
    const legend = await page.$$eval('#legend li', (li) => li.map((x) => x.textContent))
    t.equal(legend.length, 5, `legend entries: ${legend.join(' | ')}`)
    t.match(legend[0], 'nodata')
    t.match(await page.textContent('.ol-scale-line-inner'), /^\d+ (km|m)$/, 'a scale line')
    // Readable: the scale line's text against its bar (alpha blended over the map) has WCAG AA contrast.
    const contrast = await page.evaluate(() => {
      const rgba = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number)
      const [fr, fg, fb] = rgba(getComputedStyle(document.querySelector('.ol-scale-line-inner')!).color)
      const [br, bg, bb, ba = 1] = rgba(getComputedStyle(document.querySelector('.ol-scale-line')!).backgroundColor)
      const over = (c: number, under: number) => c * ba + under * (1 - ba)
      const lum = (r: number, g: number, b: number) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4 })
        .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0)
      // the bar over the lightest thing under it (land, #f4f1ea): its weakest contrast
      const l1 = lum(fr, fg, fb)
      const l2 = lum(over(br, 244), over(bg, 241), over(bb, 234))
      return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05)
    })
    t.ok(contrast >= 4.5, `scale line contrast ${contrast.toFixed(2)}:1`)
    await page.mouse.move(box0.x + box0.width / 2, box0.y + box0.height / 2)
    const readout = await page.waitForFunction(() => /^-?\d+\.\d{4}, -?\d+\.\d{4}$/.test(document.getElementById('mouse-position')!.textContent!.trim()) && document.getElementById('mouse-position')!.textContent!.trim(), undefined, WAIT)
    const [lon, lat] = String(await readout.jsonValue()).split(', ').map(Number)
    t.ok(lon > -10 && lon < 30 && lat > 35 && lat < 60, `the map's centre reads ${lon}, ${lat}: inside the layer`)
    // The basemap: zoomed out, country outlines (land) and sea around the layer.
    const renders = Number(await page.getAttribute('body', 'data-map-rendered'))
    await page.click('.ol-zoom-out')
    await page.click('.ol-zoom-out')
    await page.waitForFunction((n) => Number(document.body.dataset.mapRendered) > n, renders, WAIT)
    const world = await basemapShare(page)
    fs.writeFileSync(path.join(shots, 'basemap.png'), world.png)
    t.ok(world.land > 0.15 && world.sea > 0.1, `basemap: ${(world.land * 100).toFixed(0)}% land, ${(world.sea * 100).toFixed(0)}% sea`)
    // No stripes: a ring across the antimeridian drawn on the plane is a band of land or outline
    // from edge to edge of the map (at 65-70°N, at 17°S); this view has sea on every row.
    t.same(await stripeRows(world.png), [], 'no row of the basemap without sea across the whole map')
    await page.click('.ol-zoom-in')
    await page.click('.ol-zoom-in')
    // At 1280 px the map sits beside the seed form and the quota; the tasks take the full width.
    const [layersBox, seedBox, quotaBox, tasksBox] = await Promise.all(['#layers-panel', '#seed-panel', '#quota-panel', '#tasks-panel'].map(async (id) => (await page.locator(id).boundingBox())!))
    t.ok(seedBox.x > layersBox.x + layersBox.width - 1 && quotaBox.x === seedBox.x, 'seed and quota panels beside the map')
    t.ok(tasksBox.width > 1200, 'the tasks panel spans the page')

    // Time and elevation pickers change the tile requests.
    t.notOk(await page.isHidden('#time-label'))
    const times = await page.$$eval('#time option', (o) => o.map((x) => (x as HTMLOptionElement).value).filter(Boolean))
    t.equal(times.length, 2)
    const withTime = page.waitForRequest((r) => GET_TILE.test(r.url()) && r.url().includes(`TIME=${encodeURIComponent(times[0])}`), WAIT)
    await page.selectOption('#time', times[0])
    await withTime
    const withElevation = page.waitForRequest((r) => GET_TILE.test(r.url()) && r.url().includes('ELEVATION=100'), WAIT)
    await page.selectOption('#elevation', '100')
    await withElevation
    await page.selectOption('#gridset', 'EPSG:4326')
    await waitForTiles(page)
    await page.selectOption('#gridset', 'EPSG:900913')

    // The same layer through WMS: OpenLayers' ImageWMS asks {base}/wms for one GetMap with the pickers' values.
    const getMap = page.waitForResponse((r) => /\/wms\?.*REQUEST=GetMap/.test(r.url()), WAIT)
    // A lon/lat under the pointer, then the view changes under it (another service and grid set).
    await page.mouse.move(box0.x + box0.width / 3, box0.y + box0.height / 3)
    await page.waitForFunction(() => /^-?\d+\.\d{4}, -?\d+\.\d{4}$/.test(document.getElementById('mouse-position')!.textContent!.trim()), undefined, WAIT)
    await page.selectOption('#service', 'WMS')
    const wms = await getMap
    t.equal(wms.status(), 200, 'ImageWMS GetMap answered')
    t.equal(wms.headers()['content-type'], 'image/png')
    t.match(wms.url(), /LAYERS=demo%3Awatertemp/)
    t.match(wms.url(), /ELEVATION=100/)
    t.match(wms.url(), /CRS=EPSG%3A900913|CRS=EPSG%3A3857/)
    await page.selectOption('#gridset', 'EPSG:4326')
    t.equal(await page.textContent('#mouse-position'), 'lon, lat: move over the map', 'no stale lon/lat after the view changed')
    await page.selectOption('#gridset', 'EPSG:900913')
    await page.selectOption('#service', 'WMTS')

    // The quota before, a seed from the form, the progress bar to done, the quota after.
    await page.waitForSelector('#quota-bar[data-used]', WAIT)
    const before = Number(await page.getAttribute('#quota-bar', 'data-used'))
    await page.selectOption('#seed-form select[name=gridSetId]', 'EPSG:4326')
    // Bounds drawn on the map land in the form, in the form's grid set.
    await page.click('#draw-bounds')
    const box = (await page.locator('#map').boundingBox())!
    await page.mouse.click(box.x + box.width * 0.4, box.y + box.height * 0.4)
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6)
    await page.mouse.click(box.x + box.width * 0.6, box.y + box.height * 0.6)
    const drawn = await page.$$eval('#seed-form fieldset input', (i) => i.map((x) => Number((x as HTMLInputElement).value)))
    t.ok(drawn[0] < drawn[2] && drawn[1] < drawn[3] && drawn[0] > -10 && drawn[2] < 30 && drawn[1] > 35 && drawn[3] < 60, `drawn bounds ${drawn.join(',')} in lon/lat inside the layer`)
    await page.fill('#seed-form input[name=zoomStart]', '0')
    await page.fill('#seed-form input[name=zoomStop]', '5')
    await page.fill('#seed-form input[name=minx]', '-10')
    await page.fill('#seed-form input[name=miny]', '35')
    await page.fill('#seed-form input[name=maxx]', '30')
    await page.fill('#seed-form input[name=maxy]', '60')
    await page.fill('#seed-form input[name=threadCount]', '2')
    await page.click('#seed-submit')
    // Both tasks of the request end in the recent list, each at 100 % of its own share.
    await page.waitForFunction(() => document.querySelectorAll('#recent-tasks tr[data-state="done"]').length === 2, undefined, WAIT)
    t.equal(await page.$$eval('#tasks tbody tr', (r) => r.length), 0, 'finished tasks left the live table')
    t.ok(await page.isVisible('#no-tasks'))
    t.ok(await page.isHidden('#no-recent'))
    for (const row of await page.$$('#recent-tasks tr[data-state="done"]')) {
      t.equal(await row.$eval('progress', (p) => (p as HTMLProgressElement).value), 1, 'the progress bar reached the end')
      const own = await row.$eval('td.progress', (c) => c.textContent!)
      const [done, of] = /([\d,]+) of ([\d,]+) tiles \(100 %\)/.exec(own)!.slice(1)
      t.equal(done, of, `a done task did all of its share: ${own}`)
      t.match(await row.$eval('td.request', (c) => c.textContent), /^([\d,]+) of \1 tiles \(100 %\), tasks \d+, \d+$/)
    }
    t.match(await page.textContent('#message'), 'seed of demo:watertemp submitted')
    await page.waitForFunction((b) => Number(document.getElementById('quota-bar')!.dataset.used) > b, before, WAIT)
    const after = Number(await page.getAttribute('#quota-bar', 'data-used'))
    t.ok(after > before, `quota bar moved: ${before} -> ${after} bytes`)
    t.ok(await page.$('#quota-layers .row[data-layer="demo:watertemp"]'), 'per-layer chart row')
    t.notMatch(await page.textContent('#quota-policy'), /^$/)

    // A long seed, killed from its row while it runs.
    await page.selectOption('#seed-form select[name=gridSetId]', 'EPSG:900913')
    await page.click('#clear-bounds')
    await page.fill('#seed-form input[name=zoomStart]', '8')
    await page.fill('#seed-form input[name=zoomStop]', '14')
    await page.click('#seed-submit')
    const running = await page.waitForSelector('#tasks tr[data-state="running"]', WAIT)
    const id = await running.getAttribute('data-task')
    const rate = await page.waitForFunction((i) => {
      const row = document.querySelector(`#tasks tr[data-task="${i}"]`)
      const [r, e] = [row?.querySelector('td.rate')?.textContent, row?.querySelector('td.eta')?.textContent]
      return r && e && r !== '–' && e !== '–' ? [r, e] : false
    }, id, WAIT)
    t.ok(await rate.jsonValue(), 'tiles/s and ETA shown while running')
    await page.click(`#tasks tr[data-task="${id}"] button.kill`)
    await page.waitForSelector(`#recent-tasks tr[data-task="${id}"][data-state="aborted"]`, WAIT)
    // One of two tasks killed: its part became what it did, the other took the rest; the row says
    // it stopped rather than a percentage that would read as complete.
    t.match(await page.textContent(`#recent-tasks tr[data-task="${id}"] td.progress`), /[\d,]+ of [\d,]+ tiles, stopped/, 'a killed task reads stopped, not 100 %')
    t.match(await page.textContent('#message'), `Requested to terminate task ${id}.`)
    const task = await fetch(`${origin}${BASE}/gwc/rest/seed/tasks/${id}.json`, { headers: ADMIN })
    t.equal((await task.json()).task.state, 'aborted', 'the server agrees')

    // Kill a layer's tasks (a running one and a pending one), then all tasks.
    await page.fill('#seed-form input[name=threadCount]', '2')
    await page.click('#seed-submit')
    await page.waitForSelector('#tasks tr[data-state="pending"]', WAIT)
    await page.click('#kill-layer')
    await page.waitForFunction(() => document.getElementById('message')!.textContent!.startsWith('Requested to terminate all tasks'), undefined, WAIT)
    await page.waitForFunction(() => document.querySelectorAll('#tasks tr[data-state="running"], #tasks tr[data-state="pending"]').length === 0, undefined, WAIT)
    t.same(await (await fetch(`${origin}${BASE}/gwc/rest/seed.json`, { headers: ADMIN })).json(), { 'long-array-array': [] }, "the layer's tasks are gone")
    await page.click('#seed-submit')
    await page.waitForSelector('#tasks tr[data-state="pending"]', WAIT)
    await page.click('#kill-all')
    await page.waitForFunction(() => document.querySelectorAll('#tasks tr[data-state="running"], #tasks tr[data-state="pending"]').length === 0, undefined, WAIT)
    await page.waitForFunction(() => document.getElementById('message')!.textContent!.includes('Terminated tasks'), undefined, WAIT)
    t.match(await page.textContent('#message'), /^Requested to terminate all tasks\. Terminated tasks: \[\d+: demo:watertemp, SEED, (RUNNING|PENDING)\]/, 'sentences apart')
    t.same(await (await fetch(`${origin}${BASE}/gwc/rest/seed.json`, { headers: ADMIN })).json(), { 'long-array-array': [] }, 'all tasks are gone')
    t.ok(await page.isVisible('#no-tasks'))

    // The quota settings form writes the REST resource.
    await page.check('#quota-form input[name=enabled]')
    await page.fill('#quota-form input[name=value]', '2')
    await page.selectOption('#quota-form select[name=units]', 'GiB')
    await page.click('#quota-form button[type=submit]')
    await page.waitForFunction(() => document.getElementById('message')!.textContent === 'Disk quota saved.', undefined, WAIT)
    const config = await (await fetch(`${origin}${BASE}/gwc/rest/diskquota.json`, { headers: ADMIN })).json()
    t.match(config.tilecacheQuotaConfiguration, { enabled: true, globalQuota: { value: '2', units: 'GiB' } })
    t.match(await page.textContent('#quota-text'), 'of 2.0 GiB')

    // The layer's tile cache settings form writes the layer resource, and reads it back.
    await page.waitForSelector('#tile-settings-form[data-loaded="demo:watertemp"]', WAIT)
    t.equal(await page.inputValue('#tile-settings-form input[name=expireCache]'), '0', 'defaults shown')
    await page.fill('#tile-settings-form input[name=expireCache]', '86400')
    await page.fill('#tile-settings-form input[name=expireClients]', '600')
    await page.check('#tile-settings-form input[name=cachedOnly]')
    await page.selectOption('#tile-settings-form select[name=cachedOnlyMissing]', 'transparent')
    await page.click('#tile-settings-save')
    await page.waitForFunction(() => document.getElementById('message')!.textContent === 'Tile cache settings of demo:watertemp saved.', undefined, WAIT)
    const layerDoc = await (await fetch(`${origin}${BASE}/rest/layers/demo:watertemp.json`, { headers: ADMIN })).json()
    t.match(layerDoc.layer, { expireCache: 86400, expireClients: 600, cachedOnly: true, cachedOnlyMissing: 'transparent' })
    await page.uncheck('#tile-settings-form input[name=cachedOnly]')
    await page.fill('#tile-settings-form input[name=expireCache]', '0')
    await page.fill('#tile-settings-form input[name=expireClients]', '0')
    await page.selectOption('#tile-settings-form select[name=cachedOnlyMissing]', 'notFound')
    await page.evaluate(() => { document.getElementById('message')!.textContent = '' })
    await page.click('#tile-settings-save')
    await page.waitForFunction(() => document.getElementById('message')!.textContent === 'Tile cache settings of demo:watertemp saved.', undefined, WAIT)
    const reset = await (await fetch(`${origin}${BASE}/rest/layers/demo:watertemp.json`, { headers: ADMIN })).json()
    t.notOk('expireCache' in reset.layer, 'back at the defaults')

    // Footprints of the mosaic's granules, the styles list.
    await page.click('button.footprints[data-store="demo:watertemp"]')
    await page.waitForSelector('body[data-footprints="4"]', WAIT)
    t.ok(await page.$('#styles li'))
    await page.screenshot({ path: path.join(shots, 'page.png'), fullPage: true })
    // The screenshot check: at 1280 px the page is no wider than the window (nothing overflows).
    t.equal(await page.evaluate(() => document.documentElement.scrollWidth), 1280, 'no horizontal scroll at 1280 px')

    // The OpenAPI page.
    await page.goto(`${origin}${BASE}/web/api.html`)
    await page.waitForSelector('body[data-ready="true"]', WAIT)
    t.ok(Number(await page.getAttribute('#api', 'data-operations')) > 100, 'the API page lists the operations')
    await page.fill('#api-filter', 'diskquota/usage')
    t.ok(Number(await page.getAttribute('#api', 'data-operations')) >= 2)
    await page.screenshot({ path: path.join(shots, 'api.png') })
    t.same(problems, [], 'no script error and no CSP violation')
  })

  await t.test('a user without read access does not see the layer nor the admin panels', async (t) => {
    const { page, problems } = await open('outsider', 'outsider-password')
    await page.goto(`${origin}${BASE}/web/`)
    await page.waitForSelector('body[data-ready="true"]', WAIT)
    t.match(await page.textContent('#who'), 'outsider')
    t.same(await page.$$eval('#layer option', (o) => o.length), 0)
    t.ok(await page.isVisible('#no-layers'))
    t.ok(await page.isHidden('#seed-panel'))
    t.ok(await page.isHidden('#quota-panel'))
    await page.screenshot({ path: path.join(process.env.MAPWARDEN_E2E_SHOTS ?? tempDir(t, 'shots'), 'outsider.png') })
    t.same(problems, [])
  })

  await fetch(`${origin}${BASE}/gwc/rest/seed`, { method: 'POST', headers: { authorization: basic('admin', ADMIN_PASSWORD), 'content-type': 'application/x-www-form-urlencoded' }, body: 'kill_all=all' })
})

// The basemap's colours (app.css and app.ts): sea, land, country outlines.
const SEA = [220, 233, 242]
const LAND = [244, 241, 234]
const OUTLINE = [154, 165, 177]
const near = (data: Buffer, p: number, c: number[], d = 30) => Math.abs(data[p] - c[0]) + Math.abs(data[p + 1] - c[1]) + Math.abs(data[p + 2] - c[2]) <= d

/** The map's shares of land and sea (basemap colours). */
async function basemapShare (page: Page): Promise<{ png: Buffer, land: number, sea: number }> {
  let last: { png: Buffer, land: number, sea: number } = { png: Buffer.alloc(0), land: 0, sea: 0 }
  for (let i = 0; i < 60; i++) { // until the zoom-out has drawn, bounded
    const png = await page.locator('#map').screenshot()
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
    let land = 0
    let sea = 0
    for (let p = 0; p < data.length; p += info.channels) {
      if (near(data, p, LAND, 6)) land++
      else if (near(data, p, SEA, 6)) sea++
    }
    const n = info.width * info.height
    last = { png, land: land / n, sea: sea / n }
    if (last.land > 0.15 && last.sea > 0.1) return last
    await page.waitForTimeout(500)
  }
  return last
}

/** Rows of a map screenshot without one pixel of sea from edge to edge (a wide view has sea on every
 *  row); the map's border (two rows at the top and at the bottom) aside. */
async function stripeRows (png: Buffer): Promise<number[]> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const out: number[] = []
  for (let y = 2; y < info.height - 2; y++) {
    let sea = false
    for (let x = 0; x < info.width && !sea; x++) sea = near(data, (y * info.width + x) * info.channels, SEA, 6)
    if (!sea) out.push(y)
  }
  return out
}

/** Screenshots the map until tiles cover part of it (bounded); the share that is neither basemap nor controls. */
async function waitForTiles (page: Page): Promise<{ png: Buffer, share: number }> {
  let last: { png: Buffer, share: number } = { png: Buffer.alloc(0), share: 0 }
  for (let i = 0; i < 120; i++) {
    const png = await page.locator('#map').screenshot()
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
    let tiles = 0
    for (let p = 0; p < data.length; p += info.channels) {
      // the basemap is sea, land and gray outlines, OpenLayers' controls near-white or dark blue;
      // the demo style's tiles are saturated blues to reds
      if (![SEA, LAND, OUTLINE, [255, 255, 255]].some((c) => near(data, p, c, 40))) tiles++
    }
    last = { png, share: tiles / (info.width * info.height) }
    if (last.share > 0.2) return last
    await page.waitForTimeout(500)
  }
  return last
}
