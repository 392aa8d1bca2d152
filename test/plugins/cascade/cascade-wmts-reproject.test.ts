// A cascaded WMTS layer in a CRS its remote has no matrix set in (GeoServer reprojects cascaded WMTS
// layers): the remote (a second mapwarden) caches remote:world in EPSG:900913 only, so its WMTS offers
// that matrix set alone; our EPSG:4326 GetMap and our EPSG:4326 grid set's tile are the remote's
// 900913 tiles mosaicked and warped, compared with the remote's own EPSG:4326 GetMap of the same box:
// mean absolute difference per channel under 6 (of 255) and nine pixels in ten within 24. (Before
// the warp, both requests were an InvalidSRS exception.)
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { JSON_TYPE, rgba, startRemote } from '../../fixtures/cascade.js'

/** Mean absolute difference per channel, and the share of pixels whose largest channel difference is within `near`. */
function agreement (a: Buffer, b: Buffer, near: number) {
  const sums = [0, 0, 0, 0]
  let close = 0
  for (let i = 0; i < a.length; i += 4) {
    let d = 0
    for (let c = 0; c < 4; c++) { const x = Math.abs(a[i + c] - b[i + c]); sums[c] += x; d = Math.max(d, x) }
    if (d <= near) close++
  }
  const n = a.length / 4
  return { mean: sums.map((s) => s / n), close: close / n }
}

t.test('a cascaded WMTS layer drawn in a CRS its remote has no matrix set in: the remote tiles warped', async (t) => {
  const remote = await startRemote(t, 'mw-remote-900913')
  // The remote caches (so offers on WMTS) EPSG:900913 only.
  let r = await remote.call('PUT', '/gwc/rest/layers/remote:world.xml',
    '<GeoServerLayer><name>remote:world</name><gridSubsets><gridSubset><gridSetName>EPSG:900913</gridSetName></gridSubset></gridSubsets></GeoServerLayer>', 'text/xml')
  t.equal(r.status, 200, await r.text())
  r = await fetch(`${remote.wmts}?SERVICE=WMTS&REQUEST=GetCapabilities`)
  const caps = await r.text()
  t.notOk(/<TileMatrixSet>EPSG:4326<\/TileMatrixSet>/.test(caps), 'the remote offers no EPSG:4326 matrix set')

  const app = await build(t, { cascadeHosts: ['127.0.0.1'] })
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_TYPE, payload: JSON.stringify({ workspace: { name: 'local' } }) })
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/local/wmtsstores`, headers: JSON_TYPE, payload: JSON.stringify({ wmtsStore: { name: 'tiles', capabilitiesURL: remote.wmts } }) })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/local/wmtsstores/tiles/layers`, headers: JSON_TYPE, payload: JSON.stringify({ wmtsLayer: { name: 'world', nativeName: 'remote:world' } }) })
  t.equal(res.statusCode, 201, res.body)

  const map = { SERVICE: 'WMS', VERSION: '1.1.1', REQUEST: 'GetMap', STYLES: '', SRS: 'EPSG:4326', FORMAT: 'image/png', TRANSPARENT: 'true' }
  const theirs = async (bbox: string, size: number) => await rgba(Buffer.from(await (await fetch(`${remote.wms}?${new URLSearchParams({ ...map, LAYERS: 'remote:world', BBOX: bbox, WIDTH: String(size), HEIGHT: String(size) })}`)).arrayBuffer()))

  // An EPSG:4326 GetMap inside the remote mosaic (lon -20..20, lat -10..30).
  const box = '-15,-5,15,25'
  res = await app.inject({ url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: 'local:world', BBOX: box, WIDTH: '200', HEIGHT: '200' })}` })
  t.equal(res.headers['content-type'], 'image/png', res.body)
  const ours = await rgba(res.rawPayload)
  const a = agreement(ours.data, (await theirs(box, 200)).data, 24)
  t.ok(a.mean.every((m) => m < 6), `GetMap: mean abs difference per channel ${a.mean.map((m) => m.toFixed(2)).join(', ')}`)
  t.ok(a.close > 0.9, `GetMap: ${(a.close * 100).toFixed(1)} % of pixels within 24`)

  // Our EPSG:4326 grid set's tile z3 x7 y(TMS)=5 is lon -22.5..0, lat 22.5..45 (WMTS row 2, col 7).
  res = await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=local:world&STYLE=&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:3&TILEROW=2&TILECOL=7&FORMAT=image/png`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body)
  const tile = await rgba(res.rawPayload)
  const b = agreement(tile.data, (await theirs('-22.5,22.5,0,45', 256)).data, 24)
  t.ok(b.mean.every((m) => m < 6), `tile: mean abs difference per channel ${b.mean.map((m) => m.toFixed(2)).join(', ')}`)
  t.ok(b.close > 0.9, `tile: ${(b.close * 100).toFixed(1)} % of pixels within 24`)
  t.ok(tile.data.some((v, i) => i % 4 === 3 && v > 0), 'the tile is not empty')
})
