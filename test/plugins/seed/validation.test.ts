// Seed requests are validated whole before anything starts.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE } from '../../helper.js'
import { addLayer } from '../../fixtures/seed/layers.js'

const SEED = `${BASE}/tilecache/rest/seed`
const xml = (inner: string) => `<seedRequest>${inner}</seedRequest>`
const good = { zoomStart: 0, zoomStop: 2, type: 'seed', threadCount: 1, gridSetId: 'EPSG:4326', format: 'image/png' }
const json = (over: Record<string, unknown>) => JSON.stringify({ seedRequest: { ...good, ...over } })

t.test('[hostile #38] [hostile #39] [hostile #40] [hostile #41] bad seed requests are 400 text/plain naming the field, and create no task and no tile', async (t) => {
  const app = await build(t, { dataDir: undefined })
  await addLayer(app, { styles: ['pophatch'], config: { dimensions: { time: { enabled: true } } } })
  const cases: Array<[string, string, string]> = [
    [json({ zoomStart: -1 }), 'application/json', 'Invalid seed request: zoomStart -1: must be from 0 to 21 in grid set EPSG:4326'],
    [json({ zoomStop: 1000 }), 'application/json', 'Invalid seed request: zoomStop 1000: must be from 0 to 21 in grid set EPSG:4326'],
    [json({ zoomStart: 3, zoomStop: 2 }), 'application/json', 'Invalid seed request: zoomStart 3: is greater than zoomStop 2'],
    [json({ zoomStop: 25, gridSetId: 'EPSG:4326' }), 'application/json', 'Invalid seed request: zoomStop 25: must be from 0 to 21 in grid set EPSG:4326'],
    [json({ zoomStop: '1e3' }), 'application/json', 'Invalid seed request: zoomStop "1e3": must be an integer'],
    [json({ zoomStart: undefined }), 'application/json', 'Invalid seed request: zoomStart is required'],
    [json({ bounds: { coords: { double: ['NaN', '0', '1', '1'] } } }), 'application/json', 'Invalid seed request: bounds "NaN": must be a finite number'],
    [json({ bounds: { coords: { double: [0, 0, 1] } } }), 'application/json', 'Invalid seed request: bounds {"coords":{"double":[0,0,1]}}: must hold four numbers under coords/double (minx, miny, maxx, maxy)'],
    [json({ bounds: { coords: { double: [10, 0, 1, 1] } } }), 'application/json', 'Invalid seed request: bounds 10,0,1,1: need minx < maxx and miny < maxy'],
    [json({ bounds: { coords: { double: ['1e308', 0, '1.5e308', 1] } } }), 'application/json', 'Invalid seed request: bounds 1e+308,0,1.5e+308,1: do not intersect the layer\'s extent -180,-90,180,90 in grid set EPSG:4326'],
    [json({ threadCount: 0 }), 'application/json', 'Invalid seed request: threadCount 0: must be from 1 to 16'],
    [json({ threadCount: 1.5 }), 'application/json', 'Invalid seed request: threadCount 1.5: must be an integer'],
    [json({ threadCount: 'abc' }), 'application/json', 'Invalid seed request: threadCount "abc": must be an integer'],
    [json({ threadCount: 10000 }), 'application/json', 'Invalid seed request: threadCount 10000: must be from 1 to 16'],
    [json({ type: 'destroy' }), 'application/json', 'Invalid seed request: type destroy: must be seed, reseed or truncate'],
    [json({ type: undefined }), 'application/json', 'Invalid seed request: type (seed, reseed or truncate) is required'],
    [json({ gridSetId: 'EPSG:31467' }), 'application/json', 'Invalid seed request: gridSetId EPSG:31467: unknown grid set; the layer has EPSG:4326, EPSG:900913'],
    [json({ format: 'image/foo' }), 'application/json', 'Invalid seed request: format image/foo: must be one of image/png, image/png8, image/jpeg, image/webp, image/vnd.jpeg-png'],
    [json({ parameters: { entry: [{ string: ['STYLES', 'nosuch'] }] } }), 'application/json', 'Invalid seed request: parameters STYLES=nosuch: not a style of layer topp:states; allowed: raster, pophatch'],
    [json({ parameters: { entry: { string: ['ELEVATION', '10'] } } }), 'application/json', 'Invalid seed request: parameters ELEVATION: not a parameter filter of layer topp:states; allowed: STYLES, CQL_FILTER, TIME'],
    [json({ '@class': 'java.lang.ProcessBuilder' }), 'application/json', 'Unknown field "@class" in seedRequest'],
    [xml('<name>x</name><zoomStart>0</zoomStart>').replace('<seedRequest>', '<seedRequest class="java.lang.ProcessBuilder">'), 'text/xml', 'Unknown field attribute "class" in seedRequest'],
    ['<seedRequest><name>x</seedRequest', 'text/xml', ''],
    ['{"seedRequest":', 'application/json', '']
  ]
  for (const [payload, type, message] of cases) {
    const res = await app.inject({ method: 'POST', url: `${SEED}/topp:states.json`, headers: { ...ADMIN, 'content-type': type }, payload })
    t.equal(res.statusCode, 400, payload)
    t.match(res.headers['content-type'], /^text\/plain/)
    if (message) t.equal(res.body, message)
  }
  const list = await app.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })
  t.equal(list.body, '{"long-array-array":[]}')
  t.notOk(fs.existsSync(path.join(app.config.dataDir, 'tiles')), 'no tile directory')
})

t.test('[hostile #41] unknown layers are 400 for the seed POST and the layer task list', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'POST', url: `${SEED}/topp:nosuch.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: json({}) })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'Unknown layer topp:nosuch')
  res = await app.inject({ method: 'GET', url: `${SEED}/topp:nosuch.xml`, headers: ADMIN })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'Unknown layer topp:nosuch')
})

t.test('the interface\'s 405s: PUT/DELETE on suffixed paths, GET/PUT/DELETE without suffix, POST on seed.json', async (t) => {
  const app = await build(t)
  await addLayer(app)
  const cases: Array<[string, string]> = [
    ['PUT', `${SEED}/topp:states.json`], ['DELETE', `${SEED}/topp:states.xml`],
    ['GET', `${SEED}/topp:states`], ['PUT', `${SEED}/topp:states`], ['DELETE', `${SEED}/topp:states`],
    ['GET', SEED], ['PUT', SEED], ['DELETE', SEED], ['POST', `${SEED}.json`], ['PUT', `${SEED}.json`], ['DELETE', `${SEED}.json`]
  ]
  for (const [method, url] of cases) {
    for (const prefix of ['/tilecache/', '/gwc/']) {
      const res = await app.inject({ method: method as 'GET', url: url.replace('/tilecache/', prefix), headers: ADMIN })
      t.equal(res.statusCode, 405, `${method} ${url}`)
      t.equal(res.body, `Request method ${method} not supported`)
    }
  }
})

t.test('[hostile #42] kill_all with a bad value is 400 with GWC\'s message and kills nothing', async (t) => {
  const app = await build(t)
  await addLayer(app)
  const form = { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }
  for (const [payload, shown] of [['kill_all=garbage', 'garbage'], ['kill_all', ''], ['kill_all=all&kill_all=running', 'all,running'], ['', '']]) {
    for (const url of [SEED, `${SEED}/topp:states`]) {
      const res = await app.inject({ method: 'POST', url, headers: form, payload })
      t.equal(res.statusCode, 400, payload)
      t.equal(res.body, `Unknown kill_all code: '${shown}'. One of all|running|pending is expected.`)
    }
  }
})

t.test('empty task lists in JSON and XML, and the seed API needs an admin', async (t) => {
  const app = await build(t)
  await addLayer(app)
  let res = await app.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.body, '{"long-array-array":[]}')
  res = await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/seed/topp:states.xml`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, '<long-array-array/>')
  res = await app.inject({ method: 'GET', url: `${SEED}.json` })
  t.equal(res.statusCode, 401)
})
