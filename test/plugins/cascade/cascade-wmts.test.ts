// Cascaded WMTS stores against a real remote: a second mapwarden (the built server, a child process
// on loopback) serving a raster mosaic through its WMTS. The remote layer published from the remote's
// capabilities, drawn by the WMS from the remote's tiles (an aligned box equal to the remote's tiles,
// any box equal to the remote's own map within a stated tolerance), our own grid sets' tiles cached,
// seeded and counted, read rules applied, and a CRS the remote has no matrix set in drawn.
import t from 'tap'
import path from 'node:path'
import { build, ADMIN, ADMIN_PASSWORD, BASE } from '../../helper.js'
import { compare, files, JSON_TYPE, rgba, startRemote } from '../../fixtures/cascade.js'

t.test('a cascaded WMTS layer: published from the capabilities, drawn from the remote tiles, cached, seeded, counted', async (t) => {
  const remote = await startRemote(t)
  const app = await build(t, { cascadeHosts: ['127.0.0.1'] })
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_TYPE, payload: JSON.stringify({ workspace: { name: 'local' } }) })
  const STORES = `${BASE}/rest/workspaces/local/wmtsstores`

  // The allow-list applies to WMTS stores too.
  let res = await app.inject({ method: 'POST', url: STORES, headers: JSON_TYPE, payload: JSON.stringify({ wmtsStore: { name: 'x', capabilitiesURL: 'http://localhost:9/wmts' } }) })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'The remote server at "http://localhost:9/wmts" is refused: its host "localhost" is not in MAPWARDEN_CASCADE_HOSTS')

  res = await app.inject({
    method: 'POST', url: STORES, headers: { ...ADMIN, 'content-type': 'application/xml' },
    payload: `<wmtsStore><name>tiles</name><capabilitiesURL>${remote.wmts}?SERVICE=WMTS&amp;REQUEST=GetCapabilities</capabilitiesURL><user>admin</user><password>${ADMIN_PASSWORD}</password><maxConnections>4</maxConnections></wmtsStore>`
  })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'GET', url: `${STORES}/tiles.json`, headers: ADMIN })
  t.match(res.json().wmtsStore.password, /^crypt2:/)
  t.notOk(res.body.includes(ADMIN_PASSWORD))

  const LAYERS = `${STORES}/tiles/layers`
  res = await app.inject({ method: 'GET', url: `${LAYERS}.json?list=available`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json(), { list: { wmtsLayerName: ['remote:world'] } }, 'the remote WMTS capabilities\' layers')
  res = await app.inject({ method: 'POST', url: LAYERS, headers: JSON_TYPE, payload: JSON.stringify({ wmtsLayer: { name: 'world', nativeName: 'remote:world' } }) })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'GET', url: `${LAYERS}/world.json`, headers: ADMIN })
  t.match(res.json().wmtsLayer, { name: 'world', nativeName: 'remote:world', latLonBoundingBox: { minx: -20, maxx: 20, miny: -10, maxy: 30 } })
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/layers/local:world.json`, headers: ADMIN })
  t.match(res.json().layer, { name: 'world', type: 'WMTS' })
  res = await app.inject({ method: 'GET', url: `${BASE}/web/layers.json`, headers: ADMIN })
  t.match(res.json().layers.find((l: { name: string }) => l.name === 'local:world'), { name: 'local:world', type: 'WMTS', bbox: [-20, -10, 20, 30] }, 'in the admin page')

  // The WMS draws it: a box that is one remote tile (EPSG:4326 z3 col 7 row 2) at 256x256 is that tile exactly.
  const map = { SERVICE: 'WMS', VERSION: '1.1.1', REQUEST: 'GetMap', STYLES: '', SRS: 'EPSG:4326', FORMAT: 'image/png', TRANSPARENT: 'true' }
  const remoteTile = async (set: string, z: number, row: number, col: number) => Buffer.from(await (await fetch(`${remote.wmts}?${new URLSearchParams({ SERVICE: 'WMTS', REQUEST: 'GetTile', VERSION: '1.0.0', LAYER: 'remote:world', STYLE: '', TILEMATRIXSET: set, TILEMATRIX: `${set}:${z}`, TILEROW: String(row), TILECOL: String(col), FORMAT: 'image/png' })}`)).arrayBuffer())
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: 'local:world', BBOX: '-22.5,22.5,0,45', WIDTH: '256', HEIGHT: '256' })}` })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['content-type'], 'image/png')
  const theirs = await rgba(await remoteTile('EPSG:4326', 3, 2, 7))
  const ours = await rgba(res.rawPayload)
  t.equal(compare(ours.data, theirs.data, 0).differing, 0, 'the aligned map is the remote tile, pixel for pixel')
  t.ok(theirs.data.some((v, i) => i % 4 === 3 && v === 255), 'and the tile shows data')

  // Any box and size: resampled from the covering tiles of the best matrix; compared with the
  // remote's own GetMap of the box, pixel values within 16 of 255 on at least 97% of the pixels
  // (the remote draws from its source, we from its tiles: edges of the pattern's cells may differ by a pixel).
  const box = { BBOX: '-17,-7,13,23', WIDTH: '300', HEIGHT: '300' }
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: 'local:world', ...box })}` })
  t.equal(res.statusCode, 200, res.body)
  const mine = await rgba(res.rawPayload)
  const direct = await rgba(Buffer.from(await (await fetch(`${remote.wms}?${new URLSearchParams({ ...map, LAYERS: 'remote:world', ...box })}`)).arrayBuffer()))
  t.equal(mine.width, 300)
  const cmp = compare(mine.data, direct.data, 16)
  t.ok(cmp.differing <= 300 * 300 * 0.03, `${cmp.differing} of 90000 pixels differ by more than 16 (largest ${cmp.largest})`)

  // Our own grid set's tile (WMTS GetTile, EPSG:900913 z2 col 1 row 1) is the remote's tile of the same matrix.
  const tile = () => app.inject({ method: 'GET', url: `${BASE}/gwc/service/wmts?${new URLSearchParams({ SERVICE: 'WMTS', REQUEST: 'GetTile', VERSION: '1.0.0', LAYER: 'local:world', STYLE: '', TILEMATRIXSET: 'EPSG:900913', TILEMATRIX: 'EPSG:900913:2', TILEROW: '1', TILECOL: '1', FORMAT: 'image/png' })}` })
  res = await tile()
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['geowebcache-cache-result'], 'MISS')
  const merc = await rgba(await remoteTile('EPSG:900913', 2, 1, 1))
  t.equal(compare((await rgba(res.rawPayload)).data, merc.data, 0).differing, 0, 'the cached web mercator tile is the remote tile, pixel for pixel')
  t.ok(merc.data.some((v, i) => i % 4 === 3 && v === 255), 'and it shows data')
  res = await tile()
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')
  // TMS of the EPSG:4326 grid set: z3 x7 y(TMS)=5 is WMTS row 2 of 8.
  res = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/tms/1.0.0/local:world@EPSG:4326@png/3/7/5.png` })
  t.equal(res.statusCode, 200, res.body)
  t.equal(compare((await rgba(res.rawPayload)).data, theirs.data, 0).differing, 0, 'the TMS tile is the remote tile')

  // A CRS the remote has no matrix set in (a UTM zone): reprojected from its tiles (cascade-wmts-reproject.test.ts compares the pixels).
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, SRS: 'EPSG:32631', LAYERS: 'local:world', BBOX: '400000,0,600000,200000', WIDTH: '64', HEIGHT: '64' })}` })
  t.equal(res.headers['content-type'], 'image/png', res.body)
  // No feature info from a WMTS remote.
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, REQUEST: 'GetFeatureInfo', LAYERS: 'local:world', QUERY_LAYERS: 'local:world', BBOX: '-20,-10,20,30', WIDTH: '10', HEIGHT: '10', X: '5', Y: '5', INFO_FORMAT: 'application/json' })}` })
  t.match(res.body, /code="LayerNotQueryable"/)

  // A seed counts exactly and the quota counts what it wrote.
  const SEED = `${BASE}/tilecache/rest/seed`
  res = await app.inject({ method: 'POST', url: `${SEED}/local:world.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', threadCount: 1, zoomStart: 0, zoomStop: 3 } }) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  const pngDir = path.join(app.config.dataDir, 'tiles/local/world/EPSG_4326/png/default')
  t.equal(files(pngDir).length, 16, 'z0 2x1, z1 2x2, z2 2x2, z3 2x3: 16 tiles')
  res = await app.inject({ method: 'GET', url: `${SEED}/tasks/1.json`, headers: ADMIN })
  t.match(res.json().task, { id: 1, layer: 'local:world', state: 'done', tilesRemaining: 0, request: { tilesTotal: 16 } })
  await app.diskQuota.flush()
  res = await app.inject({ url: `${BASE}/gwc/rest/diskquota/usage.json`, headers: ADMIN })
  const onDisk = files(path.join(app.config.dataDir, 'tiles/local/world')).length
  t.ok(onDisk > 16, 'the seeded tiles and the metatiles drawn before')
  t.equal(res.json().diskQuotaUsage.layers.layer.find((l: { name: string }) => l.name === 'local:world').tiles, onDisk, 'the quota counts every tile on disk')
  // Truncated: the tiles go.
  res = await app.inject({ method: 'POST', url: `${SEED}/local:world.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'truncate', threadCount: 1, zoomStart: 0, zoomStop: 3 } }) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  t.equal(files(pngDir).length, 0, 'truncated')

  // Read rules: hidden from the anonymous caller, in the WMS and the WMTS.
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/security/acl/layers.json`, headers: JSON_TYPE, payload: '{"local.world.r":"ADMIN"}' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: 'local:world', BBOX: '-22.5,22.5,0,45', WIDTH: '256', HEIGHT: '256' })}` })
  t.match(res.body, /<ServiceException code="LayerNotDefined">/)
  res = await tile()
  t.not(res.statusCode, 200)
  t.notOk(String(res.headers['content-type']).startsWith('image/'), 'no tile for the anonymous caller')
})
