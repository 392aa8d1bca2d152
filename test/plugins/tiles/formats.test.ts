// Tile formats beyond PNG, JPEG and WebP (issue 21): image/png8 (paletted PNG, served as image/png)
// and image/vnd.jpeg-png (JPEG where a tile is opaque, PNG where it is not, each served with the
// media type of its bytes), chosen per request on every tile path and for seeding; the JPEG quality
// is a setting.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const XYZ = `${BASE}/gwc/service/xyz`
// At EPSG:4326 z4 a tile is 11.25 degrees: 4/16/7 lies inside the granule (opaque), 4/17/7 half out.
const OPAQUE = '4/16/7'
const EDGE = '4/17/7'

async function mosaic (app: FastifyInstance) {
  return createMosaic(app, 'topo', 'm', { 'm.tif': rgbTiff(160, 160, [-20, -10, 20, 30], pattern) })
}

t.test('image/png8 tiles are paletted PNGs served as image/png', async (t) => {
  const app = await build(t)
  const layer = await mosaic(app)
  const res = await app.inject({ method: 'GET', url: `${XYZ}/${layer}/EPSG:4326/${EDGE}.png8` })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['content-type'], 'image/png')
  const meta = await sharp(res.rawPayload).metadata()
  t.equal(meta.format, 'png')
  t.ok(meta.isPalette, 'a palette PNG')
  t.ok(meta.hasAlpha, 'with the transparency of the edge')
  const colours = new Set<number>()
  const raw = await sharp(res.rawPayload).ensureAlpha().raw().toBuffer()
  for (let i = 0; i < raw.length; i += 4) colours.add(raw.readUInt32BE(i))
  t.ok(colours.size <= 256, `at most 256 colours (${colours.size})`)
  // The same tile through WMTS KVP, from the cache.
  const kvp = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=${layer}&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:4&TILEROW=7&TILECOL=17&FORMAT=image/png8` })
  t.equal(kvp.statusCode, 200)
  t.equal(kvp.headers['geowebcache-cache-result'], 'HIT')
  t.same(kvp.rawPayload, res.rawPayload)
  t.ok(fs.existsSync(path.join(app.config.dataDir, 'tiles/topo/m/EPSG_4326/png8/default/4/17/8.png8')), 'stored under its own extension')
})

t.test('image/vnd.jpeg-png: JPEG where the tile is opaque, PNG where it is not, each with its media type', async (t) => {
  const app = await build(t)
  const layer = await mosaic(app)
  const opaque = await app.inject({ method: 'GET', url: `${XYZ}/${layer}/EPSG:4326/${OPAQUE}.jpeg-png` })
  t.equal(opaque.statusCode, 200, opaque.body)
  t.equal(opaque.headers['content-type'], 'image/jpeg')
  t.equal((await sharp(opaque.rawPayload).metadata()).format, 'jpeg')
  const edge = await app.inject({ method: 'GET', url: `${XYZ}/${layer}/EPSG:4326/${EDGE}.jpeg-png` })
  t.equal(edge.headers['content-type'], 'image/png')
  const meta = await sharp(edge.rawPayload).metadata()
  t.equal(meta.format, 'png')
  t.ok(meta.hasAlpha)
  // Cached: the same media types on a hit, through TMS and WMTS RESTful too.
  const tms = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/tms/1.0.0/${layer}@EPSG:4326@jpeg-png/4/16/8.jpeg-png` })
  t.equal(tms.statusCode, 200, tms.body)
  t.equal(tms.headers['geowebcache-cache-result'], 'HIT')
  t.equal(tms.headers['content-type'], 'image/jpeg')
  const rest = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/wmts/rest/${layer}/raster/EPSG:4326/EPSG:4326:4/7/17?format=image/vnd.jpeg-png` })
  t.equal(rest.headers['content-type'], 'image/png')
  t.same(rest.rawPayload, edge.rawPayload)
})

t.test('seeding in image/png8 and image/vnd.jpeg-png fills their own tile sets', async (t) => {
  const app = await build(t)
  const layer = await mosaic(app)
  for (const format of ['image/png8', 'image/vnd.jpeg-png']) {
    const res = await app.inject({
      method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: { seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 4, format, type: 'seed', threadCount: 1 } }
    })
    t.equal(res.statusCode, 200, res.body)
  }
  await app.tileCache.breeder.idle()
  const root = path.join(app.config.dataDir, 'tiles/topo/m/EPSG_4326')
  const files = (dir: string) => fs.readdirSync(path.join(root, dir, 'default'), { recursive: true }).map(String).filter((f) => f.endsWith(`.${dir}`))
  t.ok(files('png8').length > 0)
  t.equal(files('png8').length, files('jpeg-png').length, 'the same tiles in each')
  const kinds = new Set(await Promise.all(files('jpeg-png').map(async (f) => (await sharp(path.join(root, 'jpeg-png/default', f)).metadata()).format)))
  t.same([...kinds].sort(), ['jpeg', 'png'], 'opaque tiles as JPEG, the others as PNG')
  const res = await app.inject({ method: 'GET', url: `${XYZ}/${layer}/EPSG:4326/${OPAQUE}.jpeg-png` })
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')
  t.equal(res.headers['content-type'], 'image/jpeg')
})

t.test('MAPWARDEN_JPEG_QUALITY sets the quality of JPEG tiles', async (t) => {
  const sizes: number[] = []
  for (const jpegQuality of [20, 95]) {
    const app = await build(t, { jpegQuality })
    const layer = await mosaic(app)
    const res = await app.inject({ method: 'GET', url: `${XYZ}/${layer}/EPSG:4326/${OPAQUE}.jpeg` })
    t.equal(res.headers['content-type'], 'image/jpeg')
    sizes.push(res.rawPayload.length)
  }
  t.ok(sizes[0] < sizes[1] / 2, `quality 20 is much smaller than 95 (${sizes.join(' vs ')} bytes)`)
})
