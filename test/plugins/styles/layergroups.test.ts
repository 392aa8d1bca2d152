// Layer groups through /rest/layergroups and /rest/workspaces/<ws>/layergroups: GeoServer's XML and
// JSON, statuses and messages; members and styles checked, cycles refused naming them, nothing
// changed by a refused request; a layer removed from the catalog leaves its groups.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { SLD, addLayer, addWorkspace, fixture } from './helpers.js'

const REST = `${BASE}/rest`
const HOST = 'http://localhost:80/geoserver/rest'
const ATOM = 'xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate"'
const JSON_H = { ...ADMIN, 'content-type': 'application/json' }
const XML_H = { ...ADMIN, 'content-type': 'application/xml' }

async function catalog (t: Parameters<typeof build>[0]) {
  const app = await build(t)
  await addWorkspace(app, 'topo')
  await addWorkspace(app, 'other')
  await addLayer(app, 'topo', 'dem')
  await addLayer(app, 'topo', 'roads', 'VECTOR')
  await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  return app
}

const base = { name: 'base', title: 'Base map', publishables: { published: [{ '@type': 'layer', name: 'topo:dem' }, { '@type': 'layer', name: 'topo:roads' }] }, styles: { style: ['', { name: 'rain' }] } }

t.test('POST a global group (JSON), GET it in XML and JSON, list it', async (t) => {
  const app = await catalog(t)
  let res = await app.inject({ method: 'POST', url: `${REST}/layergroups`, headers: JSON_H, payload: { layerGroup: base } })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'base')
  t.equal(res.headers.location, `${HOST}/layergroups/base`)
  res = await app.inject({ url: `${REST}/layergroups/base.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, [
    '<layerGroup>',
    '  <name>base</name>',
    '  <mode>SINGLE</mode>',
    '  <title>Base map</title>',
    '  <publishables>',
    '    <published type="layer">',
    '      <name>topo:dem</name>',
    `      <atom:link ${ATOM} href="${HOST}/layers/topo%3Adem.xml" type="application/xml"/>`,
    '    </published>',
    '    <published type="layer">',
    '      <name>topo:roads</name>',
    `      <atom:link ${ATOM} href="${HOST}/layers/topo%3Aroads.xml" type="application/xml"/>`,
    '    </published>',
    '  </publishables>',
    '  <styles>',
    '    <style/>',
    '    <style>',
    '      <name>rain</name>',
    `      <atom:link ${ATOM} href="${HOST}/styles/rain.xml" type="application/xml"/>`,
    '    </style>',
    '  </styles>',
    '  <bounds>',
    '    <minx>0</minx>',
    '    <maxx>1</maxx>',
    '    <miny>0</miny>',
    '    <maxy>1</maxy>',
    '    <crs>EPSG:4326</crs>',
    '  </bounds>',
    '  <enabled>true</enabled>',
    '  <advertised>true</advertised>',
    '</layerGroup>'
  ].join('\n'))
  res = await app.inject({ url: `${REST}/layergroups/base`, headers: { ...ADMIN, accept: 'application/json' } })
  t.equal(res.body, '{"layerGroup":{"name":"base","mode":"SINGLE","title":"Base map","publishables":{"published":[' +
    `{"@type":"layer","name":"topo:dem","href":"${HOST}/layers/topo%3Adem.json"},{"@type":"layer","name":"topo:roads","href":"${HOST}/layers/topo%3Aroads.json"}]},` +
    `"styles":{"style":["",{"name":"rain","href":"${HOST}/styles/rain.json"}]},"bounds":{"minx":0,"maxx":1,"miny":0,"maxy":1,"crs":"EPSG:4326"},"enabled":true,"advertised":true}}`)
  res = await app.inject({ url: `${REST}/layergroups.json`, headers: ADMIN })
  t.equal(res.body, `{"layerGroups":{"layerGroup":[{"name":"base","href":"${HOST}/layergroups/base.json"}]}}`)
  // The list of /rest/layergroups holds the global groups; a workspace lists its own.
  res = await app.inject({ url: `${REST}/workspaces/topo/layergroups.json`, headers: ADMIN })
  t.equal(res.body, '{"layerGroups":""}')
  res = await app.inject({ url: `${REST}/layergroups.xml`, headers: ADMIN })
  t.equal(res.body, ['<layerGroups>', '  <layerGroup>', '    <name>base</name>', `    <atom:link ${ATOM} href="${HOST}/layergroups/base.xml" type="application/xml"/>`, '  </layerGroup>', '</layerGroups>'].join('\n'))
})

t.test('A workspace group in XML: nested group member, keywords, the older layers form, PUT and DELETE', async (t) => {
  const app = await catalog(t)
  let res = await app.inject({ method: 'POST', url: `${REST}/layergroups`, headers: JSON_H, payload: { layerGroup: base } })
  t.equal(res.statusCode, 201)
  res = await app.inject({
    method: 'POST',
    url: `${REST}/workspaces/topo/layergroups.xml`,
    headers: XML_H,
    payload: '<layerGroup><name>tree</name><mode>named</mode><publishables><published type="layerGroup"><name>base</name></published>' +
      '<published type="layer"><name>dem</name></published></publishables><keywords><string>hills</string></keywords>' +
      '<bounds><minx>-10</minx><maxx>10</maxx><miny>-5</miny><maxy>5</maxy><crs>EPSG:4326</crs></bounds></layerGroup>'
  })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.headers.location, `${HOST}/workspaces/topo/layergroups/tree`)
  res = await app.inject({ url: `${REST}/workspaces/topo/layergroups/tree.json`, headers: ADMIN })
  t.equal(res.body, '{"layerGroup":{"name":"tree","mode":"NAMED","workspace":{"name":"topo"},"publishables":{"published":[' +
    `{"@type":"layerGroup","name":"base","href":"${HOST}/layergroups/base.json"},{"@type":"layer","name":"topo:dem","href":"${HOST}/layers/topo%3Adem.json"}]},` +
    '"styles":{"style":["",""]},"bounds":{"minx":-10,"maxx":10,"miny":-5,"maxy":5,"crs":"EPSG:4326"},"enabled":true,"advertised":true,"keywords":{"string":["hills"]}}}')
  // Not a global group: /rest/layergroups/tree is 404 with GeoServer's message.
  res = await app.inject({ url: `${REST}/layergroups/tree.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'No such layer group tree')
  res = await app.inject({ url: `${REST}/workspaces/other/layergroups/tree.json`, headers: ADMIN })
  t.equal(res.body, 'No such layer group tree in workspace other')

  // PUT: the older layers form replaces the members; bounds follow them.
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/topo/layergroups/tree`, headers: JSON_H, payload: { layerGroup: { layers: { layer: ['topo:roads'] }, title: 'Roads only' } } })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: `${REST}/workspaces/topo/layergroups/tree.json`, headers: ADMIN })
  t.equal(res.body, '{"layerGroup":{"name":"tree","mode":"NAMED","title":"Roads only","workspace":{"name":"topo"},"publishables":{"published":[' +
    `{"@type":"layer","name":"topo:roads","href":"${HOST}/layers/topo%3Aroads.json"}]},` +
    '"styles":{"style":[""]},"bounds":{"minx":0,"maxx":1,"miny":0,"maxy":1,"crs":"EPSG:4326"},"enabled":true,"advertised":true,"keywords":{"string":["hills"]}}}')
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/topo/layergroups/tree`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: `${REST}/workspaces/topo/layergroups/tree.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/topo/layergroups/tree`, headers: ADMIN })
  t.equal(res.statusCode, 404)
})

t.test('The XML the Python geoserver-rest package sends (create_layergroup) is read as GeoServer reads it', async (t) => {
  const app = await catalog(t)
  // Lower-case mode, the workspace in the body of a global POST, a <link> in each entry, <keyword>s.
  let res = await app.inject({
    method: 'POST',
    url: `${REST}/layergroups/`, // its URL ends in a slash
    headers: XML_H,
    payload: '<layerGroup><name>lg</name><mode>single</mode><title>T</title><abstractTxt>A</abstractTxt><workspace><name>topo</name></workspace>' +
      '<publishables><published type="layer"><name>topo:dem</name><link>http://localhost:8080/geoserver/rest/layers/topo:dem.xml</link></published></publishables>' +
      '<keywords><keyword>one</keyword><keyword>two</keyword></keywords></layerGroup>'
  })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.headers.location, `${HOST}/workspaces/topo/layergroups/lg`)
  res = await app.inject({ url: `${REST}/workspaces/topo/layergroups/lg.json`, headers: ADMIN })
  const g = JSON.parse(res.body).layerGroup
  t.same([g.mode, g.title, g.abstractTxt, g.workspace, g.keywords, g.publishables.published.map((p: any) => p.name)],
    ['SINGLE', 'T', 'A', { name: 'topo' }, { string: ['one', 'two'] }, ['topo:dem']])
})

t.test('Bad input is a 4xx naming the problem, and changes nothing', async (t) => {
  const app = await catalog(t)
  t.equal((await app.inject({ method: 'POST', url: `${REST}/layergroups`, headers: JSON_H, payload: { layerGroup: base } })).statusCode, 201)
  t.equal((await app.inject({ method: 'POST', url: `${REST}/layergroups`, headers: JSON_H, payload: { layerGroup: { name: 'top', publishables: { published: { '@type': 'layerGroup', name: 'base' } } } } })).statusCode, 201)
  const snapshot = async () => [
    (await app.inject({ url: `${REST}/layergroups/base.json`, headers: ADMIN })).body,
    (await app.inject({ url: `${REST}/layergroups/top.json`, headers: ADMIN })).body,
    (await app.inject({ url: `${REST}/layergroups.json`, headers: ADMIN })).body,
    (await app.inject({ url: `${REST}/workspaces/topo/layergroups.json`, headers: ADMIN })).body
  ]
  const before = await snapshot()
  const cases: Array<[string, string, string, unknown, number, string]> = [
    ['POST', '/layergroups', 'empty', { layerGroup: { name: 'e', publishables: '' } }, 400, 'layer group must not be empty'],
    ['POST', '/layergroups', 'unknown layer', { layerGroup: { name: 'x', publishables: { published: [{ '@type': 'layer', name: 'topo:nope' }] } } }, 400, 'No such layer: topo:nope'],
    ['POST', '/layergroups', 'unknown group', { layerGroup: { name: 'x', publishables: { published: [{ '@type': 'layerGroup', name: 'nope' }] } } }, 400, 'No such layer group: nope'],
    ['POST', '/layergroups', 'unknown style', { layerGroup: { name: 'x', publishables: { published: [{ '@type': 'layer', name: 'topo:dem' }] }, styles: { style: [{ name: 'nostyle' }] } } }, 400, 'No such style: nostyle'],
    ['POST', '/layergroups', 'bad mode', { layerGroup: { name: 'x', mode: 'STACK', publishables: { published: [{ '@type': 'layer', name: 'topo:dem' }] } } }, 400, 'layerGroup mode must be one of SINGLE, OPAQUE_CONTAINER, NAMED, CONTAINER, EO, got "STACK"'],
    ['POST', '/layergroups', 'unknown field', { layerGroup: { name: 'x', colour: 'red', publishables: { published: [{ '@type': 'layer', name: 'topo:dem' }] } } }, 400, 'Unknown field "colour" in layerGroup'],
    ['POST', '/layergroups', 'duplicate', { layerGroup: base }, 409, "Layer group named 'base' already exists"],
    ['POST', '/workspaces/nope/layergroups', 'no workspace', { layerGroup: base }, 404, 'Workspace nope not found'],
    ['PUT', '/layergroups/base', 'cycle', { layerGroup: { publishables: { published: [{ '@type': 'layer', name: 'topo:dem' }, { '@type': 'layerGroup', name: 'top' }] } } }, 400, 'Layer group is recursive: base -> top -> base'],
    ['PUT', '/layergroups/base', 'itself', { layerGroup: { publishables: { published: [{ '@type': 'layerGroup', name: 'base' }] } } }, 400, 'Layer group is recursive: base -> base'],
    ['PUT', '/layergroups/base', 'rename', { layerGroup: { name: 'other' } }, 403, "Can't change name of a layer group"],
    ['PUT', '/layergroups/base', 'move', { layerGroup: { workspace: { name: 'topo' } } }, 403, "Can't change the workspace of a layer group, instead DELETE from existing workspace and POST to new workspace"],
    ['PUT', '/layergroups/base', 'bad bounds', { layerGroup: { bounds: { minx: 'west', maxx: 1, miny: 0, maxy: 1, crs: 'EPSG:4326' } } }, 400, 'layerGroup bounds minx must be a number, got "west"'],
    ['PUT', '/layergroups/nope', 'missing', { layerGroup: base }, 404, 'No such layer group nope'],
    ['PUT', '/layergroups', 'the list', { layerGroup: base }, 405, ''],
    ['POST', '/layergroups/base', 'the group', { layerGroup: base }, 405, '']
  ]
  for (const [method, path, what, payload, status, message] of cases) {
    const res = await app.inject({ method: method as 'POST', url: `${REST}${path}`, headers: JSON_H, payload: payload as object })
    t.equal(res.statusCode, status, what)
    if (message !== '') t.equal(res.body, message, what)
  }
  t.same(await snapshot(), before, 'nothing changed')
})

t.test('Anonymous callers are refused', async (t) => {
  const app = await catalog(t)
  let res = await app.inject({ url: `${REST}/layergroups.json` })
  t.equal(res.statusCode, 401)
  res = await app.inject({ method: 'POST', url: `${REST}/layergroups`, headers: { 'content-type': 'application/json' }, payload: { layerGroup: base } })
  t.equal(res.statusCode, 401)
  t.equal((await app.inject({ url: `${REST}/layergroups.json`, headers: ADMIN })).body, '{"layerGroups":""}')
})

t.test('Names are unique per workspace; a deleted workspace takes its groups along', async (t) => {
  const app = await catalog(t)
  t.equal((await app.inject({ method: 'POST', url: `${REST}/workspaces/topo/layergroups`, headers: JSON_H, payload: { layerGroup: base } })).statusCode, 201)
  // Names are unique per workspace: a global group of the same name is another group.
  t.equal((await app.inject({ method: 'POST', url: `${REST}/layergroups`, headers: JSON_H, payload: { layerGroup: base } })).statusCode, 201)
  const groups = await app.layerGroups.all()
  t.same(groups.map((g) => [g.workspace, g.name]), [[undefined, 'base'], ['topo', 'base']])
  // A workspace holding only a group is not empty (GeoServer counts its groups): no delete without
  // recurse, no rename; an empty workspace still goes.
  t.equal((await app.inject({ method: 'POST', url: `${REST}/workspaces/other/layergroups`, headers: JSON_H, payload: { layerGroup: base } })).statusCode, 201)
  let res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/other`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'Workspace not empty')
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/other`, headers: JSON_H, payload: { workspace: { name: 'renamed' } } })
  t.equal(res.statusCode, 403)
  t.equal((await app.inject({ url: `${REST}/workspaces/other/layergroups/base.json`, headers: ADMIN })).statusCode, 200)
  t.equal((await app.inject({ method: 'DELETE', url: `${REST}/workspaces/other/layergroups/base`, headers: ADMIN })).statusCode, 200)
  t.equal((await app.inject({ method: 'DELETE', url: `${REST}/workspaces/other`, headers: ADMIN })).statusCode, 200)
  // Deleting a workspace takes its groups along (recurse); its layers and groups leave the other
  // workspaces' and the global groups, and a group left empty goes (GeoServer's cascade).
  await addWorkspace(app, 'sea')
  await addLayer(app, 'sea', 'depth')
  res = await app.inject({ method: 'PUT', url: `${REST}/layergroups/base`, headers: JSON_H, payload: { layerGroup: { publishables: { published: [{ '@type': 'layer', name: 'topo:dem' }, { '@type': 'layer', name: 'sea:depth' }, { '@type': 'layerGroup', name: 'topo:base' }] }, styles: { style: ['rain', '', ''] } } } })
  t.equal(res.statusCode, 200, res.body)
  t.equal((await app.inject({ method: 'POST', url: `${REST}/layergroups`, headers: JSON_H, payload: { layerGroup: { name: 'topoonly', publishables: { published: [{ '@type': 'layer', name: 'topo:roads' }] } } } })).statusCode, 201)
  t.equal((await app.inject({ method: 'DELETE', url: `${REST}/workspaces/topo?recurse=true`, headers: ADMIN })).statusCode, 200)
  const left = await app.layerGroups.all()
  t.same(left.map((g) => [g.workspace, g.name]), [[undefined, 'base']])
  t.same(left[0].publishables, [{ type: 'layer', name: 'sea:depth' }])
  t.same(left[0].styles, [''], 'the removed entries\' styles go with them')
})
