// Lists clients call (issue "real clients, round two", 4): a workspace's coverage stores
// (geoserver-node-client getCoverageStores) and all its coverages, in GeoServer's list bodies:
// name + atom:link per item, an empty JSON list as "" (the list's key), 404 for an unknown workspace.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { makeTiff, makeZip } from '../../fixtures/mosaics/make.js'

const R = `${BASE}/rest/workspaces`
const H = 'http://localhost:80/geoserver/rest/workspaces'
const get = (app: any, url: string) => app.inject({ method: 'GET', url, headers: ADMIN })

t.test('GET workspaces/<ws>/coveragestores and workspaces/<ws>/coverages in XML and JSON', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  let res = await get(app, `${R}/ws/coveragestores.json`)
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.body, '{"coverageStores":""}', 'an empty list is "" as GeoServer writes it')
  res = await get(app, `${R}/ws/coveragestores.xml`)
  t.equal(res.body, '<coverageStores/>')
  res = await get(app, `${R}/ws/coverages.json`)
  t.equal(res.body, '{"coverages":""}')

  for (const store of ['beta', 'alpha']) {
    const up = await app.inject({ method: 'PUT', url: `${R}/ws/coveragestores/${store}/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip({ 'g.tif': makeTiff({ width: 4, height: 4, bbox: [0, 0, 1, 1], value: () => 1 }) }) })
    t.equal(up.statusCode, 200)
  }
  res = await get(app, `${R}/ws/coveragestores.json`)
  t.equal(res.body, `{"coverageStores":{"coverageStore":[{"name":"alpha","href":"${H}/ws/coveragestores/alpha.json"},{"name":"beta","href":"${H}/ws/coveragestores/beta.json"}]}}`)
  res = await get(app, `${R}/ws/coveragestores.xml`)
  t.match(res.headers['content-type'], /^application\/xml/)
  t.equal(res.body, [
    '<coverageStores>',
    '  <coverageStore>',
    '    <name>alpha</name>',
    `    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="${H}/ws/coveragestores/alpha.xml" type="application/xml"/>`,
    '  </coverageStore>',
    '  <coverageStore>',
    '    <name>beta</name>',
    `    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="${H}/ws/coveragestores/beta.xml" type="application/xml"/>`,
    '  </coverageStore>',
    '</coverageStores>'
  ].join('\n'))
  // CoverageStoreController's GET produces {JSON, XML, HTML}: no suffix and no Accept (or */*) is JSON.
  res = await get(app, `${R}/ws/coveragestores`)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8', 'no suffix: JSON, as GeoServer')
  t.equal(res.json().coverageStores.coverageStore[1].name, 'beta')
  res = await app.inject({ url: `${R}/ws/coveragestores`, headers: { ...ADMIN, accept: '*/*' } })
  t.equal(res.json().coverageStores.coverageStore[0].name, 'alpha')
  res = await app.inject({ url: `${R}/ws/coveragestores`, headers: { ...ADMIN, accept: 'application/xml' } })
  t.match(res.body, /^<coverageStores>/)

  res = await get(app, `${R}/ws/coverages.json`)
  t.equal(res.body, `{"coverages":{"coverage":[{"name":"alpha","href":"${H}/ws/coverages/alpha.json"},{"name":"beta","href":"${H}/ws/coverages/beta.json"}]}}`)
  res = await get(app, `${R}/ws/coverages.xml`)
  t.match(res.body, `<coverages>\n  <coverage>\n    <name>alpha</name>\n    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="${H}/ws/coverages/alpha.xml" type="application/atom+xml"/>`)
  // The links resolve: the coverage by its workspace-level name is the store-level one.
  const byWorkspace = await get(app, `${R}/ws/coverages/alpha.json`)
  const byStore = await get(app, `${R}/ws/coveragestores/alpha/coverages/alpha.json`)
  t.equal(byWorkspace.statusCode, 200)
  t.equal(byWorkspace.body, byStore.body)

  for (const url of [`${R}/nosuch/coveragestores.json`, `${R}/nosuch/coverages.xml`, `${R}/ws/coverages/nosuch.json`]) {
    res = await get(app, url)
    t.equal(res.statusCode, 404, url)
    t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  }
  res = await app.inject({ method: 'GET', url: `${R}/ws/coveragestores.json` })
  t.equal(res.statusCode, 401, 'admin only')
})
