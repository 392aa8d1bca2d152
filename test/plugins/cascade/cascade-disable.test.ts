// disableOnConnFailure on cascaded stores against a real remote (the built server as a child process):
// with it set, a remote that cannot be reached takes the store's layers out of the capabilities and
// answers them as not defined (WMS) and with no tile (WMTS), for WMS and WMTS stores, until the remote answers again; a store
// without it keeps answering each request with the remote's failure. MAPWARDEN_CASCADE_RETRY is 0 here,
// so every request that meets the down store asks the remote again (no waiting in the test).
import t from 'tap'
import { once } from 'node:events'
import { build, tempDir, startBuiltServer, ADMIN, BASE } from '../../helper.js'
import { JSON_TYPE, publishRemoteWorld, rgba } from '../../fixtures/cascade.js'

t.test('disableOnConnFailure: the store\'s layers disabled while the remote is down, back when it answers', async (t) => {
  const dir = tempDir(t, 'mw-remote-disable')
  let remote = await startBuiltServer(dir)
  t.teardown(() => { remote.child.kill('SIGKILL') })
  const port = new URL(remote.url).port
  await publishRemoteWorld(remote.url)
  const wms = `${remote.url}${BASE}/wms`

  const app = await build(t, { cascadeHosts: ['127.0.0.1'], cascadeRetrySeconds: 0 })
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_TYPE, payload: JSON.stringify({ workspace: { name: 'local' } }) })
  const STORES = `${BASE}/rest/workspaces/local/wmsstores`
  let res = await app.inject({ method: 'POST', url: STORES, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: `<wmsStore><name>auto</name><capabilitiesURL>${wms}</capabilitiesURL><disableOnConnFailure>true</disableOnConnFailure></wmsStore>` })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'POST', url: STORES, headers: JSON_TYPE, payload: JSON.stringify({ wmsStore: { name: 'kept', capabilitiesURL: wms } }) })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'GET', url: `${STORES}/auto.json`, headers: ADMIN })
  t.equal(res.json().wmsStore.disableOnConnFailure, true)
  for (const s of ['auto', 'kept']) {
    res = await app.inject({ method: 'POST', url: `${STORES}/${s}/wmslayers`, headers: JSON_TYPE, payload: JSON.stringify({ wmsLayer: { name: s, nativeName: 'remote:world' } }) })
    t.equal(res.statusCode, 201, res.body)
  }
  // A WMTS store of the same remote with the setting.
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/local/wmtsstores`, headers: JSON_TYPE, payload: JSON.stringify({ wmtsStore: { name: 'tiles', capabilitiesURL: `${remote.url}${BASE}/gwc/service/wmts`, disableOnConnFailure: true } }) })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/local/wmtsstores/tiles/layers`, headers: JSON_TYPE, payload: JSON.stringify({ wmtsLayer: { name: 'tiled', nativeName: 'remote:world' } }) })
  t.equal(res.statusCode, 201, res.body)
  const caps = async () => (await app.inject({ method: 'GET', url: `${BASE}/wms?SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.1.1` })).body
  const wmtsCaps = async () => (await app.inject({ method: 'GET', url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetCapabilities` })).body
  let doc = await caps()
  t.match(doc, /<Name>local:auto<\/Name>/)
  t.match(doc, /<Name>local:tiled<\/Name>/)
  t.match(doc, /<Name>local:kept<\/Name>/)
  const map = { SERVICE: 'WMS', VERSION: '1.1.1', REQUEST: 'GetMap', STYLES: '', SRS: 'EPSG:4326', BBOX: '-25,-15,25,35', WIDTH: '100', HEIGHT: '100', FORMAT: 'image/png', TRANSPARENT: 'true' }
  const getMap = (layer: string) => app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: layer })}` })
  const theirs = await rgba(Buffer.from(await (await fetch(`${wms}?${new URLSearchParams({ ...map, LAYERS: 'remote:world' })}`)).arrayBuffer()))
  res = await getMap('local:auto')
  t.equal(res.statusCode, 200)
  t.ok((await rgba(res.rawPayload)).data.equals(theirs.data), 'drawn while the remote is up')
  res = await getMap('local:tiled')
  t.equal(res.statusCode, 200, res.body)

  // The remote dies.
  remote.child.kill('SIGKILL')
  await once(remote.child, 'exit')
  res = await getMap('local:auto')
  t.equal(res.statusCode, 502, 'the request that finds the remote gone answers its failure')
  t.match(res.body, /failed: the connection was refused \(3 attempts\)/)
  doc = await caps()
  t.notMatch(doc, /local:auto/, 'then the layer is out of the WMS capabilities')
  t.match(doc, /<Name>local:kept<\/Name>/, 'the store without the setting stays listed')
  t.notMatch(await wmtsCaps(), /local:auto/, 'and out of the WMTS capabilities')
  res = await getMap('local:auto')
  t.match(res.body, /<ServiceException code="LayerNotDefined">\s*Could not find layer local:auto/)
  res = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/tms/1.0.0/local:auto@EPSG:4326@png/2/3/1.png` })
  // An unknown layer to the tile cache, as GWC answers one (a live layer of a dead remote is a 502).
  t.equal(res.statusCode, 404, 'no tile')
  t.equal(res.body, 'Unknown layer local:auto')
  res = await getMap('local:tiled')
  t.equal(res.statusCode, 502, 'the WMTS store finds its remote gone')
  t.match(res.body, /failed: the connection was refused \(3 attempts\)/)
  t.notMatch(await caps(), /local:tiled/, 'and its layer is out of the capabilities')
  res = await getMap('local:tiled')
  t.match(res.body, /<ServiceException code="LayerNotDefined">\s*Could not find layer local:tiled/)
  res = await getMap('local:kept')
  t.equal(res.statusCode, 502, 'without disableOnConnFailure: the per-request failure, as before')
  t.match(res.body, /failed: the connection was refused \(3 attempts\)/)

  // The remote is back on the same address: the next request asks it, and the layer is back.
  remote = await startBuiltServer(dir, { MAPWARDEN_PORT: port })
  res = await getMap('local:auto')
  t.equal(res.statusCode, 200, res.body)
  t.ok((await rgba(res.rawPayload)).data.equals(theirs.data), 'drawn again, the remote\'s map')
  t.match(await caps(), /<Name>local:auto<\/Name>/)
  t.match(await wmtsCaps(), /local:auto/)
  res = await getMap('local:tiled')
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['content-type'], 'image/png', 'the WMTS layer is drawn again')

  // Unset by PUT: the failure is per request again, the layer stays listed.
  res = await app.inject({ method: 'PUT', url: `${STORES}/auto`, headers: JSON_TYPE, payload: JSON.stringify({ wmsStore: { disableOnConnFailure: false } }) })
  t.equal(res.statusCode, 200, res.body)
  remote.child.kill('SIGKILL')
  await once(remote.child, 'exit')
  res = await getMap('local:auto')
  t.equal(res.statusCode, 502)
  t.match(await caps(), /<Name>local:auto<\/Name>/)
})
