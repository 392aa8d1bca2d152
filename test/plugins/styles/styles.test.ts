import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { SLD, addLayer, addWorkspace, fixture, png, zip } from './helpers.js'
import { appRows, appRun } from '../../fixtures/catalog-rows.js'
import { BUILT_IN } from '../../../services/styles/built-in.js'

const REST = `${BASE}/rest`
const HOST = 'http://localhost:80/geoserver/rest'

/** The global style list's JSON: GeoServer's built-in styles with `own`, sorted by name. */
const globalList = (...own: string[]) => JSON.stringify({ styles: { style: [...own, ...BUILT_IN.filter((n) => !own.includes(n))].sort().map((name) => ({ name, href: `${HOST}/styles/${name.replace(/ /g, '+')}.json` })) } })
const listXmlItem = (name: string) => ['  <style>', `    <name>${name}</name>`, `    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="${HOST}/styles/${name}.xml" type="application/atom+xml"/>`, '  </style>']

t.test('a new server lists the built-in styles; an empty workspace list is <styles/> and {"styles":""}', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'GET', url: `${REST}/styles.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.body, globalList())
  res = await app.inject({ method: 'GET', url: `${REST}/styles.xml`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, ['<styles>', ...BUILT_IN.flatMap(listXmlItem), '</styles>'].join('\n'))
  await addWorkspace(app, 'cite')
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/cite/styles.json`, headers: ADMIN })
  t.equal(res.body, '{"styles":""}')
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/cite/styles.xml`, headers: ADMIN })
  t.equal(res.body, '<styles/>')
})

t.test('POST an SLD creates a global style: 201, name, Location; list, entry and SLD in XML and JSON', async (t) => {
  const app = await build(t)
  const sld = fixture('rain.sld')
  let res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: sld })
  t.equal(res.statusCode, 201)
  t.equal(res.headers['content-type'], 'text/plain')
  t.equal(res.body, 'rain')
  t.equal(res.headers.location, `${HOST}/styles/rain`)

  res = await app.inject({ method: 'GET', url: `${REST}/styles.json`, headers: ADMIN })
  t.equal(res.body, globalList('rain'))
  res = await app.inject({ method: 'GET', url: `${REST}/styles.xml`, headers: ADMIN })
  t.equal(res.body, ['<styles>', ...['generic', 'line', 'point', 'polygon', 'rain', 'raster'].flatMap(listXmlItem), '</styles>'].join('\n'))

  res = await app.inject({ method: 'GET', url: `${REST}/styles/rain.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, [
    '<style>',
    '  <name>rain</name>',
    '  <format>sld</format>',
    '  <languageVersion>',
    '    <version>1.0.0</version>',
    '  </languageVersion>',
    '  <filename>rain.sld</filename>',
    '</style>'
  ].join('\n'))
  res = await app.inject({ method: 'GET', url: `${REST}/styles/rain.json`, headers: ADMIN })
  t.equal(res.body, '{"style":{"name":"rain","format":"sld","languageVersion":{"version":"1.0.0"},"filename":"rain.sld"}}')

  res = await app.inject({ method: 'GET', url: `${REST}/styles/rain.sld`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/vnd.ogc.sld+xml')
  t.equal(res.body, sld)
  res = await app.inject({ method: 'GET', url: `${REST}/styles/rain`, headers: { ...ADMIN, accept: 'application/vnd.ogc.sld+xml' } })
  t.equal(res.body, sld, 'Accept selects the SLD without a suffix')
  t.equal(fs.readFileSync(path.join(app.config.dataDir, 'styles', 'rain.sld'), 'utf8'), sld, 'stored as styles/rain.sld')
})

t.test('?name= names the style; a name with a space is %20 in Location and + in links', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'POST', url: `${REST}/styles?name=Default%20Styler`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  t.equal(res.statusCode, 201)
  t.equal(res.body, 'Default Styler')
  t.equal(res.headers.location, `${HOST}/styles/Default%20Styler`)
  const list = await app.inject({ method: 'GET', url: `${REST}/styles.json`, headers: ADMIN })
  t.equal(list.body, globalList('Default Styler'))
  t.match(list.body, `{"name":"Default Styler","href":"${HOST}/styles/Default+Styler.json"}`)
  const del = await app.inject({ method: 'DELETE', url: `${REST}/styles/Default+Styler`, headers: ADMIN })
  t.equal(del.statusCode, 200, '+ in the path is a space, as java.net.URLDecoder reads it')
})

t.test('workspace styles answer at /workspaces/<ws>/styles and /<ws>/styles and are not global', async (t) => {
  const app = await build(t)
  await addWorkspace(app, 'cite')
  let res = await app.inject({ method: 'POST', url: `${REST}/workspaces/cite/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('dem.sld') })
  t.equal(res.statusCode, 201)
  t.equal(res.headers.location, `${HOST}/workspaces/cite/styles/dem`)
  t.ok(fs.existsSync(path.join(app.config.dataDir, 'workspaces', 'cite', 'styles', 'dem.sld')))

  for (const base of [`${REST}/workspaces/cite`, `${REST}/cite`]) {
    res = await app.inject({ method: 'GET', url: `${base}/styles.json`, headers: ADMIN })
    t.equal(res.body, `{"styles":{"style":[{"name":"dem","href":"${HOST}/workspaces/cite/styles/dem.json"}]}}`)
    res = await app.inject({ method: 'GET', url: `${base}/styles/dem.xml`, headers: ADMIN })
    t.equal(res.body, [
      '<style>',
      '  <name>dem</name>',
      '  <workspace>',
      '    <name>cite</name>',
      '  </workspace>',
      '  <format>sld</format>',
      '  <languageVersion>',
      '    <version>1.0.0</version>',
      '  </languageVersion>',
      '  <filename>dem.sld</filename>',
      '</style>'
    ].join('\n'))
  }
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/cite/styles/dem.json`, headers: ADMIN })
  t.equal(res.body, '{"style":{"name":"dem","workspace":{"name":"cite"},"format":"sld","languageVersion":{"version":"1.0.0"},"filename":"dem.sld"}}')

  res = await app.inject({ method: 'GET', url: `${REST}/styles.json`, headers: ADMIN })
  t.equal(res.body, globalList(), 'the global list has no workspace style')
  res = await app.inject({ method: 'GET', url: `${REST}/styles/dem.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'No such style: dem')
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/cite/styles/nope.json`, headers: ADMIN })
  t.equal(res.body, 'No such style nope in workspace cite')
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/nope/styles.xml`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Workspace nope not found')
  res = await app.inject({ method: 'GET', url: `${REST}/styles/nope.json?quietOnNotFound=true`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, '')
})

t.test('two-step create: a catalog entry (XML or JSON), then the SLD by PUT', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<style><name>roads_style</name><filename>roads.sld</filename></style>' })
  t.equal(res.statusCode, 201)
  t.equal(res.body, 'roads_style')
  t.equal(res.headers.location, `${HOST}/styles/roads_style`)
  res = await app.inject({ method: 'GET', url: `${REST}/styles/roads_style.sld`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Style roads_style has no content yet: PUT an SLD to it first')

  res = await app.inject({ method: 'PUT', url: `${REST}/styles/roads_style`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  res = await app.inject({ method: 'GET', url: `${REST}/styles/roads_style.sld`, headers: ADMIN })
  t.equal(res.body, fixture('rain.sld'))
  t.ok(fs.existsSync(path.join(app.config.dataDir, 'styles', 'roads.sld')), 'content lands under the entry\'s filename')
  res = await app.inject({ method: 'GET', url: `${REST}/styles/roads_style.json`, headers: ADMIN })
  t.equal(res.body, '{"style":{"name":"roads_style","format":"sld","languageVersion":{"version":"1.0.0"},"filename":"roads.sld"}}')

  res = await app.inject({ method: 'POST', url: `${REST}/styles.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"style":{"name":"lakes"}}' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'GET', url: `${REST}/styles/lakes.json`, headers: ADMIN })
  t.equal(res.body, '{"style":{"name":"lakes","format":"sld","languageVersion":{"version":"1.0.0"},"filename":"lakes.sld"}}')
})

t.test('PUT an SLD replaces the content: charset honoured, SE 1.1 version recorded, old revision removed', async (t) => {
  const app = await build(t)
  await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  const latin = fixture('rain.sld').replace('Rainfall', 'Pluie d\u00e9cennale').replace('UTF-8', 'ISO-8859-1')
  let res = await app.inject({ method: 'PUT', url: `${REST}/styles/rain.sld`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml; charset=ISO-8859-1' }, payload: Buffer.from(latin, 'latin1') })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'GET', url: `${REST}/styles/rain.sld`, headers: ADMIN })
  t.match(res.body, 'Pluie d\u00e9cennale')

  res = await app.inject({ method: 'PUT', url: `${REST}/styles/rain`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.se+xml' }, payload: fixture('classes-se.sld') })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'GET', url: `${REST}/styles/rain.json`, headers: ADMIN })
  t.equal(JSON.parse(res.body).style.languageVersion.version, '1.1.0')
  const files = fs.readdirSync(path.join(app.config.dataDir, 'styles'))
  t.same(files, ['rain~3.sld'], 'one live file; earlier revisions are gone')
  t.equal(fs.readFileSync(path.join(app.config.dataDir, 'styles', 'rain~3.sld'), 'utf8'), fixture('classes-se.sld'))
  res = await app.inject({ method: 'PUT', url: `${REST}/styles/nope`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'No such style: nope')
})

t.test('PUT a catalog entry renames, changes the filename and moves a style between workspaces', async (t) => {
  const app = await build(t)
  await addWorkspace(app, 'cite')
  await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  let res = await app.inject({ method: 'PUT', url: `${REST}/styles/rain.xml`, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: '<style><workspace>cite</workspace></style>' })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `${REST}/styles.json`, headers: ADMIN })).body, globalList(), 'the style moved out of the global list')
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/cite/styles/rain.sld`, headers: ADMIN })
  t.equal(res.body, fixture('rain.sld'))
  t.notOk(fs.existsSync(path.join(app.config.dataDir, 'styles', 'rain.sld')), 'the old file left with the move')

  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/cite/styles/rain`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"style":{"name":"storm","workspace":""}}' })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'GET', url: `${REST}/styles/storm.json`, headers: ADMIN })
  t.equal(res.body, '{"style":{"name":"storm","format":"sld","languageVersion":{"version":"1.0.0"},"filename":"rain.sld"}}')
  res = await app.inject({ method: 'GET', url: `${REST}/styles/storm.sld`, headers: ADMIN })
  t.equal(res.body, fixture('rain.sld'))
})

t.test('DELETE keeps the SLD as .bak without purge and removes it and its images with purge', async (t) => {
  const app = await build(t)
  const dir = path.join(app.config.dataDir, 'styles')
  await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  let res = await app.inject({ method: 'DELETE', url: `${REST}/styles/rain`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  t.same(fs.readdirSync(dir), ['rain.sld.bak'])
  t.equal(fs.readFileSync(path.join(dir, 'rain.sld.bak'), 'utf8'), fixture('rain.sld'))
  res = await app.inject({ method: 'GET', url: `${REST}/styles/rain.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)

  const pkg = await zip([['gear.sld', fixture('gear.sld')], ['gear.png', await png()]])
  await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: pkg })
  t.same(fs.readdirSync(dir).sort(), ['gear.png', 'gear.sld', 'rain.sld.bak'])
  res = await app.inject({ method: 'DELETE', url: `${REST}/styles/gear.xml?purge=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.same(fs.readdirSync(dir), ['rain.sld.bak'], 'SLD and image purged')

  res = await app.inject({ method: 'DELETE', url: `${REST}/styles/gear`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Style gear not found')
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/nope/styles/gear`, headers: ADMIN })
  t.equal(res.body, 'Workspace nope not found')
})

t.test('a style used by a layer is 403 on DELETE; recurse=true detaches it', async (t) => {
  const app = await build(t)
  await addWorkspace(app, 'topo')
  await addLayer(app, 'topo', 'dem', 'RASTER', 'dem')
  await appRun(app, 'UPDATE layers SET styles = $1 WHERE name = $2', ['["rain","dem"]', 'dem'])
  await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('dem.sld') })
  await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  let res = await app.inject({ method: 'DELETE', url: `${REST}/styles/dem?purge=true`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, "Can't delete style referenced by existing layers.")
  t.ok(fs.existsSync(path.join(app.config.dataDir, 'styles', 'dem.sld')))
  res = await app.inject({ method: 'DELETE', url: `${REST}/styles/dem?purge=true&recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  const layer = await app.layers.get('topo', 'dem')
  t.equal(layer?.defaultStyle, undefined)
  t.same(layer?.styles, ['rain'])
})

t.test('a ZIP package creates the style in one step with its images next to the SLD', async (t) => {
  const app = await build(t)
  await addWorkspace(app, 'poi')
  const image = await png()
  const pkg = await zip([['gear.sld', fixture('gear.sld')], ['gear.png', image], ['readme.txt', 'ignored'], ['sub/other.png', image]])
  let res = await app.inject({ method: 'POST', url: `${REST}/workspaces/poi/styles`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: pkg })
  t.equal(res.statusCode, 201)
  t.equal(res.body, 'gear', 'named after the UserStyle')
  t.equal(res.headers.location, `${HOST}/workspaces/poi/styles/gear`)
  const dir = path.join(app.config.dataDir, 'workspaces', 'poi', 'styles')
  t.same(fs.readdirSync(dir).sort(), ['gear.png', 'gear.sld'])
  const sld = fs.readFileSync(path.join(dir, 'gear.sld'), 'utf8')
  const href = /xlink:href="([^"]+)"/.exec(sld)![1]
  t.same(fs.readFileSync(path.resolve(dir, href)), image, 'the relative xlink:href still names the image')
  t.same(fs.readdirSync(path.join(app.config.dataDir, 'tmp')).filter((f) => f.startsWith('style-')), [], 'staging removed')

  // PUT .zip replaces SLD and image
  const image2 = await (await import('sharp')).default({ create: { width: 2, height: 2, channels: 3, background: '#00ff00' } }).png().toBuffer()
  const sld2 = fixture('gear.sld').replace('<Size>16</Size>', '<Size>32</Size>')
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/poi/styles/gear.zip`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await zip([['any-name.sld', sld2], ['gear.png', image2]]) })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/poi/styles/gear.sld`, headers: ADMIN })
  t.equal(res.body, sld2)
  t.same(fs.readFileSync(path.join(dir, 'gear.png')), image2)
  t.same(fs.readdirSync(dir).sort(), ['gear.png', 'gear~2.sld'])
})

t.test('styles survive a restart', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true })
  await first.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  await first.inject({ method: 'PUT', url: `${REST}/styles/rain`, headers: { ...ADMIN, ...SLD }, payload: fixture('dem.sld') })
  await first.close()
  const app = await build(t, { dataDir })
  const res = await app.inject({ method: 'GET', url: `${REST}/styles/rain.sld`, headers: ADMIN })
  t.equal(res.body, fixture('dem.sld'))
  t.same(await app.styles.rasterStyleFor(undefined, 'rain'), {
    opacity: 1,
    channels: { gray: 1 },
    colorMap: {
      type: 'ramp',
      entries: [
        { quantity: 0, color: [0, 0, 255], opacity: 1, label: 'sea' },
        { quantity: 500, color: [0, 255, 0], opacity: 1, label: 'plain' },
        { quantity: 1000, color: [255, 0, 0], opacity: 0.5, label: 'peak' }
      ]
    }
  })
})

t.test('deleting a workspace with recurse removes its style files', async (t) => {
  const app = await build(t)
  await addWorkspace(app, 'gone')
  let res = await app.inject({ method: 'GET', url: `${REST}/gone/styles.json`, headers: ADMIN })
  t.equal(res.body, '{"styles":""}')
  await app.inject({ method: 'POST', url: `${REST}/gone/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  res = await app.inject({ method: 'GET', url: `${REST}/gone/styles.json`, headers: ADMIN })
  t.equal(res.body, `{"styles":{"style":[{"name":"rain","href":"${HOST}/workspaces/gone/styles/rain.json"}]}}`, 'a cached list follows a change')
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/gone`, headers: ADMIN })
  t.equal(res.statusCode, 403, 'not empty without recurse')
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/gone?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.notOk(fs.existsSync(path.join(app.config.dataDir, 'workspaces', 'gone', 'styles')))
  t.equal((await appRows(app, 'SELECT count(*) AS n FROM styles'))[0].n, 0)
  res = await app.inject({ method: 'GET', url: `${REST}/gone/styles.json`, headers: ADMIN })
  t.equal(res.statusCode, 404, 'no cached list outlives its workspace')
})

t.test('two concurrent POSTs of one new style: one 201, one 403', async (t) => {
  const app = await build(t)
  const post = () => app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  const codes = (await Promise.all([post(), post()])).map((r) => r.statusCode).sort()
  t.same(codes, [201, 403])
})

t.test('styles routes need credentials; collection PUT and item POST are 405', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'GET', url: `${REST}/styles.json` })
  t.equal(res.statusCode, 401)
  t.match(res.headers['www-authenticate'], /^Basic realm="GeoServer Realm"/)
  res = await app.inject({ method: 'PUT', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  t.equal(res.statusCode, 405)
  res = await app.inject({ method: 'POST', url: `${REST}/styles/rain`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  t.equal(res.statusCode, 405)
})
