// A layer is offered as a map only where mapwarden can draw it (issue 31, 6): an app-schema feature
// type whose mapping maps no geometry has a layer row, but no capabilities document, tile list, seed
// form or legend offers it, and its tiles answer 404 as before (one that maps a geometry is drawn:
// test/plugins/appschema/serving-queries.test.ts). The mosaic beside it is offered everywhere.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { createWorkspace, fixtureZip, putZip } from '../appschema/helpers.js'

t.test('a feature type with no geometry is not offered as a map; the mosaic is', async (t) => {
  const app = await build(t)
  const mosaic = await createMosaic(app, 'topp', 'world', { 'w.tif': rgbTiff(8, 8, [0, 0, 8, 8], pattern) })
  await createWorkspace(app, 'st')
  // The stations' mapping without its geometry (st:location): features only, nothing to draw.
  const noGeometry = (text: string) => text.replace(/<AttributeMapping>\s*<targetAttribute>st:location<\/targetAttribute>[\s\S]*?<\/AttributeMapping>/, '')
  t.equal((await putZip(app, 'st', 'props', await fixtureZip('property', { 'stations.appschema': noGeometry }), '?configure=all')).statusCode, 200)
  const feature = 'st:Stations'
  const rest = await app.inject({ url: `${BASE}/rest/layers.json`, headers: ADMIN })
  t.match(rest.body, feature, 'the feature type is a layer of the catalog')

  const get = (url: string) => app.inject({ url: `${BASE}${url}`, headers: ADMIN })
  const documents: Array<[string, string]> = [
    ['WMTS capabilities', '/gwc/service/wmts?service=WMTS&request=GetCapabilities'],
    ['WMTS capabilities (RESTful)', '/gwc/service/wmts/1.0.0/WMTSCapabilities.xml'],
    ['TMS', '/gwc/service/tms/1.0.0'],
    ['WMS capabilities', '/wms?service=WMS&version=1.3.0&request=GetCapabilities'],
    ['WMS capabilities of the workspace', '/st/wms?service=WMS&version=1.3.0&request=GetCapabilities'],
    ['the admin page\'s layers', '/web/layers.json']
  ]
  for (const [what, url] of documents) {
    const res = await get(url)
    t.equal(res.statusCode, 200, what)
    t.notMatch(res.body, /Stations/, `${what} do not list the feature type`)
    if (!url.startsWith('/st/')) t.match(res.body, mosaic, `${what} list the mosaic`)
  }
  const tiles = await get(`/gwc/service/tms/1.0.0/${feature}@EPSG:4326@png/0/0/0.png`)
  t.equal(tiles.statusCode, 404, 'its tiles answer 404 as before')
  t.equal((await get(`/gwc/service/tms/1.0.0/${feature}@EPSG:4326@png`)).statusCode, 404, 'no TMS tile map')
  t.equal((await get(`/web/legend.json?layer=${feature}`)).statusCode, 404, 'no legend')
  const getMap = await get(`/wms?service=WMS&version=1.1.1&request=GetMap&layers=${feature}&styles=&srs=EPSG:4326&bbox=0,0,8,8&width=8&height=8&format=image/png`)
  t.match(getMap.body, /LayerNotDefined/, 'no WMS map')
  const seed = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${feature}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { seedRequest: { name: feature, gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 1, format: 'image/png', type: 'seed', threadCount: 1 } } })
  t.equal(seed.statusCode, 400, 'no seeding')
  t.match(seed.body, feature)
  t.equal((await get(`/gwc/service/tms/1.0.0/${mosaic}@EPSG:4326@png/0/1/0.png`)).statusCode, 200, 'the mosaic still draws')
})
