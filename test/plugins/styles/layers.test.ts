import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { SLD, addLayer, addWorkspace, fixture } from './helpers.js'

const REST = `${BASE}/rest`
const HOST = 'http://localhost:80/geoserver/rest'
const ATOM = 'xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate"'

async function catalog (t: Parameters<typeof build>[0]) {
  const app = await build(t)
  await addWorkspace(app, 'topo')
  await addWorkspace(app, 'other')
  await addLayer(app, 'topo', 'dem')
  await addLayer(app, 'topo', 'roads', 'VECTOR')
  const post = (url: string, sld: string, name?: string) =>
    app.inject({ method: 'POST', url: `${REST}${url}${name ? `?name=${name}` : ''}`, headers: { ...ADMIN, ...SLD }, payload: fixture(sld) })
  await post('/styles', 'rain.sld')
  await post('/styles', 'dem.sld') // a global 'dem' that the workspace style shadows
  await post('/workspaces/topo/styles', 'gray-gamma.sld', 'dem')
  await post('/workspaces/other/styles', 'rain.sld', 'elsewhere')
  return app
}

t.test('GET /rest/layers lists qualified layer names in XML and JSON', async (t) => {
  const app = await catalog(t)
  let res = await app.inject({ method: 'GET', url: `${REST}/layers.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, `{"layers":{"layer":[{"name":"topo:dem","href":"${HOST}/layers/topo%3Adem.json"},{"name":"topo:roads","href":"${HOST}/layers/topo%3Aroads.json"}]}}`)
  res = await app.inject({ method: 'GET', url: `${REST}/layers.xml`, headers: ADMIN })
  t.equal(res.body, [
    '<layers>',
    '  <layer>',
    '    <name>topo:dem</name>',
    `    <atom:link ${ATOM} href="${HOST}/layers/topo%3Adem.xml" type="application/atom+xml"/>`,
    '  </layer>',
    '  <layer>',
    '    <name>topo:roads</name>',
    `    <atom:link ${ATOM} href="${HOST}/layers/topo%3Aroads.xml" type="application/atom+xml"/>`,
    '  </layer>',
    '</layers>'
  ].join('\n'))
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/other/layers.json`, headers: ADMIN })
  t.equal(res.body, '{"layers":""}')
  // An unknown workspace has no layers: 200 and the empty list, as GeoServer answers (issue 40).
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/nosuch/layers.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '{"layers":""}')
})

t.test('PUT a layer assigns default and alternate styles; GET shows them in XML and JSON', async (t) => {
  const app = await catalog(t)
  let res = await app.inject({
    method: 'PUT',
    url: `${REST}/layers/topo:dem.xml`,
    headers: { ...ADMIN, 'content-type': 'application/xml' },
    payload: '<layer><defaultStyle><name>dem</name></defaultStyle><styles><style><name>rain</name></style></styles></layer>'
  })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'GET', url: `${REST}/layers/topo:dem.xml`, headers: ADMIN })
  t.equal(res.body, [
    '<layer>',
    '  <name>dem</name>',
    '  <type>RASTER</type>',
    '  <defaultStyle>',
    '    <name>topo:dem</name>',
    '    <workspace>topo</workspace>',
    `    <atom:link ${ATOM} href="${HOST}/workspaces/topo/styles/dem.xml" type="application/xml"/>`,
    '  </defaultStyle>',
    '  <styles class="linked-hash-set">',
    '    <style>',
    '      <name>rain</name>',
    `      <atom:link ${ATOM} href="${HOST}/styles/rain.xml" type="application/xml"/>`,
    '    </style>',
    '  </styles>',
    '  <resource class="coverage">',
    '    <name>topo:dem</name>',
    `    <atom:link ${ATOM} href="${HOST}/workspaces/topo/coveragestores/dem_store/coverages/dem.xml" type="application/xml"/>`,
    '  </resource>',
    '  <enabled>true</enabled>',
    '</layer>'
  ].join('\n'), 'a bare name resolves to the workspace style first')
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/topo/layers/dem.json`, headers: ADMIN })
  t.equal(res.body, JSON.stringify({
    layer: {
      name: 'dem',
      type: 'RASTER',
      defaultStyle: { name: 'topo:dem', workspace: 'topo', href: `${HOST}/workspaces/topo/styles/dem.json` },
      styles: { '@class': 'linked-hash-set', style: [{ name: 'rain', href: `${HOST}/styles/rain.json` }] },
      resource: { '@class': 'coverage', name: 'topo:dem', href: `${HOST}/workspaces/topo/coveragestores/dem_store/coverages/dem.json` },
      enabled: true
    }
  }))
  const stored = await app.layers.get('topo', 'dem')
  t.equal(stored?.defaultStyle, 'topo:dem')
  t.same(stored?.styles, ['rain'], 'the tile cache reads the allowed STYLES values from here')

  res = await app.inject({
    method: 'PUT',
    url: `${REST}/workspaces/topo/layers/roads`,
    headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: { layer: { defaultStyle: { name: 'rain' }, styles: { style: [{ name: 'dem', workspace: 'topo' }, { name: 'rain' }] } } }
  })
  t.equal(res.statusCode, 200)
  const roads = await app.layers.get('topo', 'roads')
  t.equal(roads?.defaultStyle, 'rain')
  t.same(roads?.styles, ['topo:dem', 'rain'])
  res = await app.inject({ method: 'GET', url: `${REST}/layers/topo:roads.json`, headers: ADMIN })
  t.equal(JSON.parse(res.body).layer.resource.href, `${HOST}/workspaces/topo/datastores/roads_store/featuretypes/roads.json`)
})

t.test('PUT a layer refuses unknown styles and styles of another workspace, and changes nothing', async (t) => {
  const app = await catalog(t)
  const put = (payload: unknown) => app.inject({ method: 'PUT', url: `${REST}/layers/topo:dem.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: payload as object })
  let res = await put({ layer: { defaultStyle: { name: 'nope' } } })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'No such style: nope')
  res = await put({ layer: { styles: { style: [{ name: 'rain' }, { name: 'other:elsewhere' }] } } })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'Style other:elsewhere belongs to another workspace than layer topo:dem')
  res = await put({ feature: {} })
  t.equal(res.statusCode, 400)
  const layer = await app.layers.get('topo', 'dem')
  t.equal(layer?.defaultStyle, undefined)
  t.same(layer?.styles, [])

  res = await app.inject({ method: 'GET', url: `${REST}/layers/topo:nope.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'No such layer: topo:nope')
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/nope/layers/dem.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Workspace nope not found')
  res = await app.inject({ method: 'GET', url: `${REST}/layers/dem.json`, headers: ADMIN })
  t.equal(res.statusCode, 200, 'a bare layer name that one workspace has is found')
})

t.test('renaming a style rewrites the layers that use it; rasterStyleFor resolves workspace first', async (t) => {
  const app = await catalog(t)
  await app.inject({ method: 'PUT', url: `${REST}/layers/topo:dem`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { defaultStyle: 'rain', styles: { style: { name: 'topo:dem' } } } } })
  const res = await app.inject({ method: 'PUT', url: `${REST}/styles/rain.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { style: { name: 'drizzle' } } })
  t.equal(res.statusCode, 200)
  const layer = await app.layers.get('topo', 'dem')
  t.equal(layer?.defaultStyle, 'drizzle')
  t.same(layer?.styles, ['topo:dem'])

  t.same(await app.styles.rasterStyleFor('topo', 'dem'), { opacity: 0.5, channels: { gray: 2 }, contrast: { method: 'normalize', gamma: 2 } }, 'workspace style shadows the global one')
  t.equal((await app.styles.rasterStyleFor(undefined, 'dem'))?.colorMap?.type, 'ramp', 'the global one without a workspace')
  t.equal((await app.styles.rasterStyleFor('other', 'topo:dem'))?.channels?.gray, 2, 'a prefixed name names its workspace')
  t.equal(await app.styles.rasterStyleFor('topo', 'drizzle'), undefined, 'no RasterSymbolizer: default rendering')
  await t.rejects(app.styles.rasterStyleFor('topo', 'nope'), { message: 'No such style: nope' })
  t.equal(await app.styles.rasterStyleFor('topo', 'raster'), undefined, 'the built-in raster style is the default rendering')
})
