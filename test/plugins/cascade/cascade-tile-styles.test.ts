// A cascaded WMS layer's remote styles as the STYLES tile parameter (WMTS STYLE, TMS/XYZ STYLES):
// each allowed remote style is its own tile set drawn by the remote in that style (pixels equal to
// the remote's own tile of the place and style), a style the layer does not select refused as a
// tile parameter, listed in GWC's layer view and the WMTS capabilities.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { JSON_TYPE, rgba, startStyledRemote } from '../../fixtures/cascade.js'

t.test('a remote style as the STYLES tile parameter: its own tile set, drawn by the remote in that style; a style the layer does not allow refused', async (t) => {
  const remote = await startStyledRemote(t)
  const app = await build(t, { cascadeHosts: ['127.0.0.1'] })
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_TYPE, payload: JSON.stringify({ workspace: { name: 'local' } }) })
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/local/wmsstores`, headers: JSON_TYPE, payload: JSON.stringify({ wmsStore: { name: 'remote', capabilitiesURL: remote.wms } }) })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/local/wmsstores/remote/wmslayers`, headers: JSON_TYPE, payload: JSON.stringify({ wmsLayer: { name: 'world', nativeName: 'remote:world', selectedRemoteStyles: { string: ['raster', 'gray'] } } }) })
  t.equal(res.statusCode, 201, res.body)

  // Tile 3/4/3 (lon 0..45, lat 0..41) shows part of remote:world. The remote's own tile of the same
  // place and style is its GetMap of the metatile cut, as ours is: the same pixels.
  const ours = async (q: string) => {
    const r = await app.inject({ url: `${BASE}/gwc/service/xyz/local:world/EPSG:900913/3/4/3.png${q}`, headers: ADMIN })
    t.equal(r.statusCode, 200, r.body)
    return { cache: r.headers['geowebcache-cache-result'], px: (await rgba(r.rawPayload)).data }
  }
  const theirs = async (q: string) => (await rgba(Buffer.from(await (await fetch(`${remote.url}${BASE}/gwc/service/xyz/remote:world/EPSG:900913/3/4/3.png${q}`, { headers: ADMIN })).arrayBuffer()))).data
  const gray = await ours('?STYLES=gray')
  t.equal(gray.cache, 'MISS')
  t.ok(gray.px.equals(await theirs('?STYLES=gray')), 'STYLES=gray: the remote\'s gray pixels')
  const plain = await ours('')
  t.equal(plain.cache, 'MISS', 'no STYLES is another tile set')
  t.ok(plain.px.equals(await theirs('')), 'no STYLES: the remote\'s default style')
  t.notOk(plain.px.equals(gray.px), 'the two styles differ')
  t.equal((await ours('?STYLES=gray')).cache, 'HIT', 'the gray tile is cached')
  // WMTS names it STYLE; the same tile set.
  res = await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=local:world&STYLE=gray&TILEMATRIXSET=EPSG:900913&TILEMATRIX=EPSG:900913:3&TILEROW=3&TILECOL=4&FORMAT=image/png`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')
  t.ok((await rgba(res.rawPayload)).data.equals(gray.px))

  // A style the remote has but the layer does not select, and one nobody has: refused, nothing drawn.
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/local/wmsstores/remote/wmslayers/world`, headers: JSON_TYPE, payload: JSON.stringify({ wmsLayer: { selectedRemoteStyles: { string: ['gray'] } } }) })
  t.equal(res.statusCode, 200, res.body)
  for (const style of ['raster', 'bogus']) {
    res = await app.inject({ url: `${BASE}/gwc/service/xyz/local:world/EPSG:900913/3/4/3.png?STYLES=${style}`, headers: ADMIN })
    t.equal(res.statusCode, 400, style)
    t.match(res.body, `STYLES=${style}`)
    t.match(res.body, 'allowed: gray')
  }
  // GWC's view of the layer: its style filter lists the remote styles.
  res = await app.inject({ url: `${BASE}/gwc/rest/layers/local:world.json`, headers: ADMIN })
  t.same(res.json().GeoServerLayer.parameterFilters, { styleParameterFilter: [{ key: 'STYLES', defaultValue: '', allowedStyles: ['gray'] }] })
  // WMTS capabilities list them as the layer's styles.
  res = await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetCapabilities`, headers: ADMIN })
  const layerCaps = /<ows:Identifier>local:world<\/ows:Identifier>[\s\S]*?<\/Layer>/.exec(res.body)?.[0] ?? ''
  t.same([...layerCaps.matchAll(/<Style[^>]*>\s*<ows:Identifier>([^<]*)</g)].map((m) => m[1]), ['gray'])
})
