// Layer groups are layers of the tile cache (issues 33 and 34): a group's tile shows its members in
// order with the group's styles (the WMS GetMap of the group over the same area), global groups and
// groups of a workspace, listed in WMTS and TMS, seeded with an exact count, dropped when the group or
// a member's style changes, and hidden from a reader who may not read one of its layers.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { ADMIN, BASE } from '../../helper.js'
import { at } from '../wms/helpers.js'
import { GRID_SETS, gridSubset } from '../../../services/tilecache/grid-sets.js'
import { countTiles, tileRange } from '../../../services/tilecache/tile-range.js'
import { differing, fill, G, getMap, JSON_TYPE, REST, sld, SLD_TYPE, styleLayer, tileBox, tilePixels, vectorSetup, xyz } from '../../fixtures/vector-tiles.js'

async function group (app: FastifyInstance, name: string, members: string[], styles: string[] = [], ws?: string): Promise<void> {
  const published = members.map((m) => ({ '@type': 'layer', name: m }))
  const res = await app.inject({ method: 'POST', url: ws ? `${REST}/workspaces/${ws}/layergroups` : `${REST}/layergroups`, headers: JSON_TYPE, payload: { layerGroup: { name, publishables: { published }, styles: { style: styles } } } })
  if (res.statusCode !== 201) throw new Error(`${name}: ${res.statusCode} ${res.body}`)
}

// Tile 3/8/3 is lon 0..22.5, lat 0..22.5 (256 pixels): lon 5, lat 5 is pixel (57, 199); the road at lat 20 is row 28.
const POLYGON = [57, 199] as const
const ROAD = [150, 28] as const

t.test('a group\'s tile draws its layers in order with the group\'s styles, as its GetMap does', async (t) => {
  const app = await vectorSetup(t)
  await styleLayer(t, app, 'vx:places', 'unused', fill('#00FF00'))
  let res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=red`, headers: SLD_TYPE, payload: sld('red', fill('#FF0000')) })
  t.equal(res.statusCode, 201)
  await group(app, 'both', ['vx:shapes', 'vx:roads'], ['vx:red', ''])
  await group(app, 'pair', ['vx:roads', 'vx:shapes'], [], 'vx')
  for (const name of ['both', 'vx:pair']) {
    const tile = await tilePixels(app, name, 3, 8, 3)
    const map = await getMap(app, name, tileBox(3, 8, 3))
    t.equal(differing(map, tile), 0, `${name}: the tile is the group's GetMap of its area`)
    t.same(at(tile, ROAD[0], ROAD[1]).slice(0, 3), [0, 0, 255], `${name}: the road's default blue line`)
  }
  t.same(at(await tilePixels(app, 'both', 3, 8, 3), POLYGON[0], POLYGON[1]), [255, 0, 0, 255], 'the group\'s style for the polygons: red')
  t.same(at(await tilePixels(app, 'vx:pair', 3, 8, 3), POLYGON[0], POLYGON[1]), [0xAA, 0xAA, 0xAA, 255], 'the layer\'s default style in the other group')
  t.equal((await xyz(app, 'both', 3, 8, 3)).headers['geowebcache-cache-result'], 'HIT', 'cached')
  t.ok(fs.existsSync(path.join(app.config.dataDir, 'tiles/@groups/both/EPSG_4326/png/default')), 'a global group\'s tiles are kept apart from every workspace')

  const wmts = await app.inject({ url: `${G}/wmts?service=WMTS&request=GetCapabilities` })
  for (const name of ['both', 'vx:pair']) t.match(wmts.body, `<ows:Identifier>${name}</ows:Identifier>`, `WMTS lists ${name}`)
  const tms = await app.inject({ url: `${G}/tms/1.0.0` })
  t.match(tms.body, 'tms/1.0.0/both%40EPSG%3A4326%40png"', 'TMS lists the group')

  // The group changes (its second layer goes): its tiles go.
  res = await app.inject({ method: 'PUT', url: `${REST}/layergroups/both`, headers: JSON_TYPE, payload: { layerGroup: { name: 'both', publishables: { published: [{ '@type': 'layer', name: 'vx:shapes' }] }, styles: { style: ['vx:red'] } } } })
  t.equal(res.statusCode, 200, res.body)
  let again = await xyz(app, 'both', 3, 8, 3)
  t.equal(again.headers['geowebcache-cache-result'], 'MISS', 'a changed group is drawn again')
  t.equal(at(await tilePixels(app, 'both', 3, 8, 3), ROAD[0], ROAD[1])[3], 0, 'without the road')
  // A style it draws with changes: its tiles go.
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/styles/red`, headers: SLD_TYPE, payload: sld('red', fill('#0000FF')) })
  t.equal(res.statusCode, 200)
  again = await xyz(app, 'both', 3, 8, 3)
  t.equal(again.headers['geowebcache-cache-result'], 'MISS', 'a member style\'s edit drops the group\'s tiles')
  t.same(at(await tilePixels(app, 'both', 3, 8, 3), POLYGON[0], POLYGON[1]), [0, 0, 255, 255], 'drawn with the edited style')
  // A member's data store changes: its groups' tiles go.
  await xyz(app, 'vx:pair', 3, 8, 3)
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/db`, headers: JSON_TYPE, payload: { dataStore: { description: 'changed' } } })
  t.equal(res.statusCode, 200)
  t.equal((await xyz(app, 'vx:pair', 3, 8, 3)).headers['geowebcache-cache-result'], 'MISS', 'a member\'s data store change drops the group\'s tiles')
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx/layergroups/pair`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal((await xyz(app, 'vx:pair', 3, 8, 3)).statusCode, 404, 'a removed group has no tiles')
})

t.test('a group is seeded with an exact count; a reader who may not read one of its layers sees no tile of it', async (t) => {
  const app = await vectorSetup(t)
  await group(app, 'both', ['vx:shapes', 'vx:roads'])
  const SEED = `${BASE}/gwc/rest/seed`
  let res = await app.inject({ method: 'POST', url: `${SEED}/both.json`, headers: JSON_TYPE, payload: { seedRequest: { name: 'both', gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 4, format: 'image/png', type: 'seed', threadCount: 2 } } })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  // The group's bounds: the union of its layers' (lon 0..30, lat 0..20).
  const expected = Number(countTiles(tileRange(gridSubset(GRID_SETS['EPSG:4326'], [0, 0, 30, 20]), 0, 4)))
  const dir = path.join(app.config.dataDir, 'tiles/@groups/both/EPSG_4326/png/default')
  t.equal(fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.png')).length, expected, `${expected} tiles`)
  t.equal(JSON.parse((await app.inject({ url: `${SEED}/tasks/1.json`, headers: ADMIN })).body).task.request.tilesTotal, expected, 'counted exactly')
  t.equal((await xyz(app, 'both', 3, 8, 3)).headers['geowebcache-cache-result'], 'HIT', 'a seeded tile is served from the cache')

  res = await app.inject({ method: 'POST', url: `${REST}/security/acl/layers.json`, headers: JSON_TYPE, payload: '{"vx.roads.r":"ROLE_READER"}' })
  t.equal(res.statusCode, 201)
  t.equal((await xyz(app, 'both', 3, 8, 3, {})).statusCode, 404, 'hidden from an anonymous reader: one of its layers is')
  t.equal((await xyz(app, 'vx:shapes', 3, 8, 3, {})).statusCode, 200, 'its open layer stays readable')
  t.notMatch((await app.inject({ url: `${G}/wmts?service=WMTS&request=GetCapabilities` })).body, '<ows:Identifier>both</ows:Identifier>', 'not listed to them')
  t.equal((await xyz(app, 'both', 3, 8, 3)).statusCode, 200, 'the administrator reads it')
})
