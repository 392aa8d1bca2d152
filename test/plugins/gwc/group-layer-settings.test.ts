// A layer group's tile layer through GWC's REST layers resource: shown, and a write to it answered
// with a 4xx naming what is not kept, never a 500 (its settings would need a layer row).
import t from 'tap'
import { ADMIN, BASE } from '../../helper.js'
import { JSON_TYPE, REST, vectorSetup } from '../../fixtures/vector-tiles.js'

t.test('GET shows a group\'s tile layer; PUT of its settings is refused by name and changes nothing', async (t) => {
  const app = await vectorSetup(t)
  const res = await app.inject({ method: 'POST', url: `${REST}/layergroups`, headers: JSON_TYPE, payload: { layerGroup: { name: 'both', publishables: { published: [{ '@type': 'layer', name: 'vx:shapes' }, { '@type': 'layer', name: 'vx:roads' }] } } } })
  t.equal(res.statusCode, 201, res.body)
  const L = `${BASE}/gwc/rest/layers`
  const shown = await app.inject({ url: `${L}/both.json`, headers: ADMIN })
  t.equal(shown.statusCode, 200, shown.body)
  for (const body of ['<GeoServerLayer><expireCache>600</expireCache></GeoServerLayer>', '<GeoServerLayer><gridSubsets><gridSubset><gridSetName>EPSG:4326</gridSetName><zoomStop>5</zoomStop></gridSubset></gridSubsets></GeoServerLayer>']) {
    const put = await app.inject({ method: 'PUT', url: `${L}/both.xml`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: body })
    t.equal(put.statusCode, 400, put.body)
    t.match(put.body, 'GeoServerLayer of a layer group: its tile settings (expiry, grid subsets) are not kept; set them on its layers')
  }
  const back = await app.inject({ method: 'PUT', url: `${L}/both.xml`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: (await app.inject({ url: `${L}/both.xml`, headers: ADMIN })).body })
  t.equal(back.statusCode, 200, 'what GET shows goes back unchanged')
  t.same((await app.inject({ url: `${L}/both.json`, headers: ADMIN })).json(), shown.json(), 'nothing changed')
})
