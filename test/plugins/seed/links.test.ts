// The seed POST names the tasks it created: one Link header per task (rel="item"), each pointing
// at the task's resource under the prefix the request came in by; the links resolve.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
const BBOX: [number, number, number, number] = [-20, -10, 20, 30]
const seedJson = (o: Record<string, unknown>) => JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', threadCount: 1, ...o } })
const linksOf = (h: string | string[] | undefined): string[] => h === undefined ? [] : Array.isArray(h) ? h : [h]

t.test('a seed POST answers 200 with an empty body and one Link rel="item" per created task; each link resolves to its task', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, BBOX, pattern) })
  for (const [prefix, threadCount, type] of [['gwc', 3, 'seed'], ['tilecache', 2, 'reseed'], ['gwc', 4, 'truncate']] as const) {
    const res = await app.inject({ method: 'POST', url: `${BASE}/${prefix}/rest/seed/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 2, threadCount, type }) })
    t.equal(res.statusCode, 200)
    t.equal(res.body, '')
    const links = linksOf(res.headers.link)
    t.equal(links.length, type === 'truncate' ? 1 : threadCount, `${type}: one header per task`)
    const ids: number[] = []
    for (const link of links) {
      const m = /^<http:\/\/localhost:80(\/geoserver\/(gwc|tilecache)\/rest\/seed\/tasks\/(\d+)\.json)>; rel="item"$/.exec(link)
      t.ok(m, `link shape: ${link}`)
      t.equal(m![2], prefix, 'under the prefix of the request')
      ids.push(Number(m![3]))
      const task = await app.inject({ method: 'GET', url: m![1], headers: ADMIN })
      t.equal(task.statusCode, 200)
      t.match(task.json().task, { id: Number(m![3]), type, layer })
    }
    t.equal(new Set(ids).size, ids.length, 'distinct ids')
    await app.tileCache.breeder.idle()
  }
  // The XML form of the request gets the same headers; a refused request gets none.
  let res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.xml`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<seedRequest><gridSetId>EPSG:4326</gridSetId><zoomStart>0</zoomStart><zoomStop>1</zoomStop><type>seed</type><threadCount>2</threadCount></seedRequest>' })
  t.equal(res.statusCode, 200)
  t.equal(linksOf(res.headers.link).length, 2)
  res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 3, zoomStop: 1 }) })
  t.equal(res.statusCode, 400)
  t.equal(res.headers.link, undefined)
  await app.tileCache.breeder.idle()
})
