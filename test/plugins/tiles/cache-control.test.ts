// Protected tiles are not public: a tile readable anonymously is sent `public`, any other
// `private` (a shared proxy must not hand it to someone else), on every tile path (XYZ, TMS,
// WMTS KVP and REST) and on the 304 of a revalidation, in every catalog mode; max-age is
// MAPWARDEN_TILE_MAX_AGE.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const S = `${BASE}/rest/security`
const G = `${BASE}/gwc/service`
const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }

const paths = (layer: string) => [
  `${G}/xyz/${layer}/EPSG:4326/2/4/1.png`,
  `${G}/tms/1.0.0/${encodeURIComponent(`${layer}@EPSG:4326@png`)}/2/4/2.png`,
  `${G}/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${layer}&STYLE=&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:2&TILEROW=1&TILECOL=4&FORMAT=image/png`,
  `${G}/wmts/rest/${layer}/raster/EPSG:4326/EPSG:4326:2/1/4?format=image/png`
]

t.test('tiles anyone may read are public; tiles behind a read rule are private, on every path and mode', async (t) => {
  const app = await build(t, { tileMaxAge: 120 })
  const open = await createMosaic(app, 'topp', 'open', { 'open.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  const secret = await createMosaic(app, 'topp', 'secret', { 'secret.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  let res = await app.inject({ method: 'POST', url: `${S}/acl/layers.json`, headers: JSON_TYPE, payload: '{"topp.secret.r":"ROLE_READER"}' })
  t.equal(res.statusCode, 201)
  for (const mode of ['HIDE', 'MIXED', 'CHALLENGE']) {
    res = await app.inject({ method: 'PUT', url: `${S}/acl/catalog.json`, headers: JSON_TYPE, payload: JSON.stringify({ mode }) })
    t.equal(res.statusCode, 200)
    for (const [layer, headers, expected] of [
      [open, {}, 'public, max-age=120'],
      [open, ADMIN, 'public, max-age=120'], // readable without a login: a login does not make it private
      [secret, ADMIN, 'private, max-age=120']
    ] as Array<[string, Record<string, string>, string]>) {
      for (const url of paths(layer)) {
        res = await app.inject({ method: 'GET', url, headers })
        t.equal(res.statusCode, 200, `${mode} ${url}`)
        t.equal(res.headers['cache-control'], expected, `${mode} ${headers.authorization ? 'admin' : 'anonymous'} ${url}`)
        const again = await app.inject({ method: 'GET', url, headers: { ...headers, 'if-none-match': String(res.headers.etag) } })
        t.equal(again.statusCode, 304)
        t.equal(again.headers['cache-control'], expected, 'a revalidation keeps it')
      }
    }
    res = await app.inject({ method: 'GET', url: paths(secret)[0] })
    t.equal(res.statusCode, mode === 'HIDE' ? 404 : 401, `${mode}: anonymous readers get no tile`)
    t.notOk(res.headers['cache-control'], 'and no cacheable answer')
  }
})
