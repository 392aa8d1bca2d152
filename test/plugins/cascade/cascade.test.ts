// Cascaded WMS stores against a real remote: a second mapwarden (the built server, a child process
// on loopback) serving a raster mosaic. The store's REST shapes and refusals, the password sealed and
// never shown, the remote layer published and drawn (a tile equals the remote's GetMap of its box),
// a seed counted exactly, GetFeatureInfo forwarded, a remote exception a 502 that is never cached, and
// the remote killed in the middle of a seed leaving the task ABORTED with the remote's failure.
import t from 'tap'
import path from 'node:path'
import { build, ADMIN, ADMIN_PASSWORD, BASE, TEST_BACKEND } from '../../helper.js'
import { pattern, rgbTiff, zipOf } from '../../fixtures/seed/mosaic.js'
import { BBOX, files, JSON_TYPE, rgba, startRemote } from '../../fixtures/cascade.js'

t.test('a cascaded WMS store and layer: REST shapes, sealed password, tiles equal to the remote GetMap, exact seed, forwarded GetFeatureInfo, remote death mid-seed', async (t) => {
  const remote = await startRemote(t)
  const app = await build(t, { cascadeHosts: ['127.0.0.1'] })
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_TYPE, payload: JSON.stringify({ workspace: { name: 'local' } }) })
  const STORES = `${BASE}/rest/workspaces/local/wmsstores`

  // Refusals: a host not on MAPWARDEN_CASCADE_HOSTS, a scheme other than http(s), credentials in the URL, a bad number.
  let res = await app.inject({ method: 'POST', url: STORES, headers: JSON_TYPE, payload: JSON.stringify({ wmsStore: { name: 'x', capabilitiesURL: 'http://localhost:9/wms' } }) })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'The remote server at "http://localhost:9/wms" is refused: its host "localhost" is not in MAPWARDEN_CASCADE_HOSTS')
  res = await app.inject({ method: 'POST', url: STORES, headers: JSON_TYPE, payload: JSON.stringify({ wmsStore: { name: 'x', capabilitiesURL: 'file:///etc/passwd' } }) })
  t.equal(res.statusCode, 400)
  t.match(res.body, /file: URLs are not called \(http: and https: only\)/)
  res = await app.inject({ method: 'POST', url: STORES, headers: JSON_TYPE, payload: JSON.stringify({ wmsStore: { name: 'x', capabilitiesURL: `http://admin:pw@127.0.0.1:9/wms` } }) })
  t.equal(res.statusCode, 400)
  t.match(res.body, /credentials go in the store's user and password/)
  res = await app.inject({ method: 'POST', url: STORES, headers: JSON_TYPE, payload: JSON.stringify({ wmsStore: { name: 'x', capabilitiesURL: remote.wms, maxConnections: 0 } }) })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'maxConnections must be a whole number from 1 to 128: 0')
  res = await app.inject({ method: 'POST', url: STORES, headers: JSON_TYPE, payload: JSON.stringify({ wmsStore: { name: 'x', capabilitiesURL: remote.wms, bogus: 1 } }) })
  t.equal(res.statusCode, 400)
  t.match(res.body, /"bogus"/)

  // The store, in XML as GeoServer's clients send it.
  res = await app.inject({
    method: 'POST', url: STORES, headers: { ...ADMIN, 'content-type': 'application/xml' },
    payload: `<wmsStore><name>remote</name><description>the loopback remote</description><capabilitiesURL>${remote.wms}?SERVICE=WMS&amp;REQUEST=GetCapabilities</capabilitiesURL><user>admin</user><password>${ADMIN_PASSWORD}</password><maxConnections>2</maxConnections><readTimeout>30</readTimeout><connectTimeout>5</connectTimeout></wmsStore>`
  })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'remote')
  t.match(res.headers.location, /\/rest\/workspaces\/local\/wmsstores\/remote$/)
  res = await app.inject({ method: 'GET', url: `${STORES}/remote.json`, headers: ADMIN })
  const store = JSON.parse(res.body).wmsStore
  t.match(store, { name: 'remote', description: 'the loopback remote', type: 'WMS', enabled: true, workspace: { name: 'local' }, _default: false, user: 'admin', maxConnections: 2, readTimeout: 30, connectTimeout: 5, useConnectionPooling: true })
  t.match(store.password, /^crypt2:/, 'the password is shown as its sealed token')
  t.notOk(res.body.includes(ADMIN_PASSWORD), 'never in clear text')
  res = await app.inject({ method: 'GET', url: `${STORES}/remote.xml`, headers: ADMIN })
  t.match(res.body.replace(/>\s+</g, '><'), /<wmsStore><name>remote<\/name>[\s\S]*<type>WMS<\/type>[\s\S]*<__default>false<\/__default>[\s\S]*<capabilitiesURL>[^<]*<\/capabilitiesURL><user>admin<\/user><password>crypt2:[^<]+<\/password><maxConnections>2<\/maxConnections>[\s\S]*<wmsLayers><atom:link [^>]*href="[^"]*\/rest\/workspaces\/local\/wmsstores\/remote\/wmslayers.xml"/)
  if (TEST_BACKEND === 'sqlite') {
    const config = (app.db.prepare("SELECT config FROM stores WHERE workspace = 'local' AND name = 'remote'").get() as { config: string }).config
    t.notOk(config.includes(ADMIN_PASSWORD), 'the stored row holds no clear password')
  }
  res = await app.inject({ method: 'GET', url: `${STORES}.json`, headers: ADMIN })
  t.match(JSON.parse(res.body), { wmsStores: { wmsStore: [{ name: 'remote' }] } })
  // The same name again (any store kind shares the name space): 409.
  res = await app.inject({ method: 'POST', url: STORES, headers: JSON_TYPE, payload: JSON.stringify({ wmsStore: { name: 'remote', capabilitiesURL: remote.wms } }) })
  t.equal(res.statusCode, 409)
  t.equal(res.body, "Store 'remote' already exists in workspace 'local'")

  // Layers: the remote's names not yet published; an unknown one refused; one published as local:world.
  const LAYERS = `${STORES}/remote/wmslayers`
  res = await app.inject({ method: 'GET', url: `${LAYERS}.json?list=available`, headers: ADMIN })
  t.same(JSON.parse(res.body), { list: { wmsLayerName: ['remote:world'] } })
  res = await app.inject({ method: 'POST', url: LAYERS, headers: JSON_TYPE, payload: JSON.stringify({ wmsLayer: { name: 'nothing', nativeName: 'remote:nothing' } }) })
  t.equal(res.statusCode, 400)
  t.match(res.body, /has no layer named "remote:nothing"/)
  res = await app.inject({ method: 'POST', url: LAYERS, headers: JSON_TYPE, payload: JSON.stringify({ wmsLayer: { name: 'world', nativeName: 'remote:world', title: 'World, cascaded' } }) })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'world')
  res = await app.inject({ method: 'GET', url: `${LAYERS}/world.json`, headers: ADMIN })
  t.match(JSON.parse(res.body).wmsLayer, {
    name: 'world', nativeName: 'remote:world', title: 'World, cascaded', srs: 'EPSG:4326', enabled: true,
    namespace: { name: 'local' }, store: { '@class': 'wmsStore', name: 'local:remote' },
    latLonBoundingBox: { minx: -20, maxx: 20, miny: -10, maxy: 30, crs: 'EPSG:4326' }
  })
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces/local/wmslayers.json`, headers: ADMIN })
  t.match(JSON.parse(res.body), { wmsLayers: { wmsLayer: [{ name: 'world' }] } })
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/layers/local:world.json`, headers: ADMIN })
  t.match(JSON.parse(res.body).layer, { name: 'world', type: 'WMS', resource: { '@class': 'wmsLayer', name: 'local:world' } })
  t.match(JSON.parse(res.body).layer.resource.href, /\/rest\/workspaces\/local\/wmsstores\/remote\/wmslayers\/world.json$/)
  // The admin page offers it as a tile layer (image formats only, no vector tiles).
  res = await app.inject({ method: 'GET', url: `${BASE}/web/layers.json`, headers: ADMIN })
  const onPage = res.json().layers.find((l: { name: string }) => l.name === 'local:world')
  t.match(onPage, { name: 'local:world', type: 'WMS', bbox: [-20, -10, 20, 30] })
  t.notOk(onPage.formats.includes('application/vnd.mapbox-vector-tile'))
  res = await app.inject({ method: 'DELETE', url: `${STORES}/remote`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, "Store 'remote' has 1 published layers: delete them first or use recurse=true")

  // A WMS GetMap of the cascaded layer equals the remote's GetMap of the same box and size.
  const map = { SERVICE: 'WMS', VERSION: '1.1.1', REQUEST: 'GetMap', STYLES: '', SRS: 'EPSG:4326', BBOX: '-25,-15,25,35', WIDTH: '200', HEIGHT: '200', FORMAT: 'image/png', TRANSPARENT: 'true' }
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: 'local:world' })}` })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['content-type'], 'image/png')
  const theirs = Buffer.from(await (await fetch(`${remote.wms}?${new URLSearchParams({ ...map, LAYERS: 'remote:world' })}`)).arrayBuffer())
  const [a, b] = [await rgba(res.rawPayload), await rgba(theirs)]
  t.equal(a.width, 200)
  t.ok(a.data.equals(b.data), 'the cascaded map is the remote map, pixel for pixel')

  // A WMTS tile (z3, 22.5 degrees: col 7, row 2 = lon -22.5..0, lat 22.5..45) equals the remote's
  // GetMap of the tile's box: it was cut from the remote's map of its 4x4 metatile.
  const tile = (f = 'image/png') => app.inject({ method: 'GET', url: `${BASE}/gwc/service/wmts?${new URLSearchParams({ SERVICE: 'WMTS', REQUEST: 'GetTile', VERSION: '1.0.0', LAYER: 'local:world', STYLE: '', TILEMATRIXSET: 'EPSG:4326', TILEMATRIX: 'EPSG:4326:3', TILEROW: '2', TILECOL: '7', FORMAT: f })}` })
  res = await tile()
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['geowebcache-cache-result'], 'MISS')
  const remoteTile = Buffer.from(await (await fetch(`${remote.wms}?${new URLSearchParams({ ...map, LAYERS: 'remote:world', BBOX: '-22.5,22.5,0,45', WIDTH: '256', HEIGHT: '256' })}`)).arrayBuffer())
  const [ta, tb] = [await rgba(res.rawPayload), await rgba(remoteTile)]
  let differing = 0
  for (let i = 0; i < ta.data.length; i += 4) if (ta.data.subarray(i, i + 4).compare(tb.data.subarray(i, i + 4)) !== 0) differing++
  t.equal(differing, 0, 'the cached tile is the remote GetMap of its box, pixel for pixel')
  t.ok(tb.data.some((v, i) => i % 4 === 3 && v === 255), 'and it shows data')
  res = await tile()
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')

  // GetFeatureInfo is the remote's answer.
  const info = { ...map, REQUEST: 'GetFeatureInfo', X: '100', Y: '100', INFO_FORMAT: 'application/json' }
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...info, LAYERS: 'local:world', QUERY_LAYERS: 'local:world' })}` })
  t.equal(res.statusCode, 200, res.body)
  const theirInfo = await (await fetch(`${remote.wms}?${new URLSearchParams({ ...info, LAYERS: 'remote:world', QUERY_LAYERS: 'remote:world' })}`)).text()
  const noStamp = (body: string) => ({ ...JSON.parse(body), timeStamp: undefined })
  t.same(noStamp(res.body), noStamp(theirInfo), 'the remote answer, as it came (its time stamp aside)')
  t.match(JSON.parse(res.body), { type: 'FeatureCollection', features: [{ properties: {} }] })

  // A seed of the cascaded layer: every tile of the range once (same count as a local mosaic of these bounds).
  const SEED = `${BASE}/tilecache/rest/seed`
  res = await app.inject({ method: 'POST', url: `${SEED}/local:world.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', threadCount: 1, zoomStart: 0, zoomStop: 3 } }) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  const pngDir = path.join(app.config.dataDir, 'tiles/local/world/EPSG_4326/png/default')
  t.equal(files(pngDir).length, 16, 'z0 2x1, z1 2x2, z2 2x2, z3 2x3: 16 tiles')
  res = await app.inject({ method: 'GET', url: `${SEED}/tasks/1.json`, headers: ADMIN })
  t.match(JSON.parse(res.body).task, { id: 1, layer: 'local:world', state: 'done', tilesRemaining: 0, request: { tilesTotal: 16 } })

  // The disk quota counts the cascaded layer's tiles as any layer's.
  await app.diskQuota.flush()
  res = await app.inject({ url: `${BASE}/gwc/rest/diskquota/usage.json`, headers: ADMIN })
  const usage = res.json().diskQuotaUsage.layers.layer.find((l: { name: string }) => l.name === 'local:world')
  t.equal(usage.tiles, 16, 'the quota counts the 16 tiles on disk')

  // A remote exception (a layer the remote no longer has) is a 502 with the remote's message; nothing is cached.
  await fetch(`${remote.url}${BASE}/rest/workspaces/remote/coveragestores/world?recurse=true`, { method: 'DELETE', headers: ADMIN })
  const fresh = { ...map, BBOX: '-24,-14,24,34' }
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...fresh, LAYERS: 'local:world' })}` })
  t.equal(res.statusCode, 502)
  t.match(res.headers['content-type'], /application\/vnd.ogc.se_xml/)
  t.match(res.body, /<ServiceException>\s*The remote server at &quot;http:\/\/127.0.0.1:\d+\/geoserver\/wms&quot; answered an exception: Could not find layer remote:world\s*<\/ServiceException>/)
  t.notOk(res.body.includes(ADMIN_PASSWORD))
  const before = files(pngDir).length
  res = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/tms/1.0.0/local:world@EPSG:4326@png/4/14/8.png` })
  t.equal(res.statusCode, 502)
  t.match(res.body, /answered an exception/)
  t.equal(files(pngDir).length, before, 'no error image was cached')

  // The remote killed in the middle of a seed: the task ends ABORTED naming the remote's failure.
  const again = await fetch(`${remote.url}${BASE}/rest/workspaces/remote/coveragestores/world/file.imagemosaic`, { method: 'PUT', headers: { ...ADMIN, 'content-type': 'application/zip' }, body: await zipOf({ 'world.tif': rgbTiff(80, 80, BBOX, pattern) }) as unknown as BodyInit })
  t.ok(again.status < 300, 'the remote has its layer again')
  res = await app.inject({ method: 'POST', url: `${SEED}/local:world.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', threadCount: 1, zoomStart: 4, zoomStop: 9 } }) })
  t.equal(res.statusCode, 200)
  const z4 = path.join(pngDir, '4')
  // Polled, not timed: the remote dies once the first metatile of the seed is on disk.
  while (files(z4).length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
  remote.child.kill('SIGKILL')
  await app.tileCache.breeder.idle()
  res = await app.inject({ method: 'GET', url: `${SEED}/tasks/2.json`, headers: ADMIN })
  const task = JSON.parse(res.body).task
  t.match(task, { id: 2, layer: 'local:world', state: 'aborted' })
  t.match(JSON.stringify(task), /The remote server at \\"http:\/\/127.0.0.1:\d+\/geoserver\/wms\\" failed: the connection was refused \(3 attempts\)/)
  // Progress counts whole chunks: the chunk the remote died in is not counted, its tiles written before stay cached.
  t.ok(files(z4).length > 0 && task.tilesRemaining > 0 && task.tilesDone < task.tilesTotal, 'it stopped part way')
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces/local/wmsstores/remote/wmslayers.json?list=available`, headers: ADMIN })
  t.equal(res.statusCode, 502, 'the dead remote is a 502 for every request that needs it')
  t.match(res.body, /failed: the connection was refused \(3 attempts\)/)
  // Read rules apply before the remote is asked: hidden from the anonymous caller (LayerNotDefined).
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/security/acl/layers.json`, headers: JSON_TYPE, payload: '{"local.world.r":"ADMIN"}' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: 'local:world' })}` })
  t.match(res.body, /<ServiceException code="LayerNotDefined">/)
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: 'local:world' })}`, headers: ADMIN })
  t.equal(res.statusCode, 502, 'the administrator reaches the (dead) remote')
  // A store deleted with recurse takes its layer out of rest/layers and the tile cache.
  res = await app.inject({ method: 'DELETE', url: `${BASE}/rest/workspaces/local/wmsstores/remote?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/layers/local:world.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(files(pngDir).length, 0, 'its tiles went with it')
})
