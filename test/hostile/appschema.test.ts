// Bad input to the app-schema upload (hostile cases 21-27 and 32):
// every case answers a 4xx with a text/plain message that names the problem, and leaves the data
// directory, the catalog and the existing store exactly as they were; no empty store is left.
import t, { type Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN } from '../helper.js'
import { canary } from '../manifest.js'
import {
  REST, createWorkspace, fixtureItems, fixtureText, fixtureZip, get, installCache, manifest, putText, putZip, tmpLeftovers,
  zipItems, zipNames, type ZipItem
} from '../plugins/appschema/helpers.js'

async function catalogSnapshot (app: FastifyInstance): Promise<string[]> {
  const out: string[] = []
  for (const u of ['/workspaces/gsml/datastores.json', '/workspaces/gsml/datastores/geosciml.xml', '/workspaces/gsml/datastores/geosciml/featuretypes.json',
    '/workspaces/gsml/datastores/fresh.xml', '/workspaces/gsml/datastores/geosciml/featuretypes/MappedFeature.json']) {
    const r = await get(app, u)
    out.push(`${r.statusCode} ${r.body}`)
  }
  out.push((await zipNames((await get(app, '/workspaces/gsml/datastores/geosciml/file.appschema')).rawPayload)).join(','))
  return out
}

/** Sends a request that must be refused and proves that nothing changed. */
async function refused (t: Test, app: FastifyInstance, send: () => Promise<LightMyRequestResponse>, status: number, message: string | RegExp): Promise<LightMyRequestResponse> {
  const files = manifest(app.config.dataDir)
  const catalog = await catalogSnapshot(app)
  const res = await send()
  t.equal(res.statusCode, status, 'status')
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  if (typeof message === 'string') t.equal(res.body, message)
  else t.match(res.body, message)
  t.notMatch(res.body, app.config.dataDir, 'no absolute path in the message')
  t.notMatch(res.body, /\bat .+:\d+:\d+|root:/, 'no stack trace, no file contents')
  t.same(manifest(app.config.dataDir), files, 'data directory unchanged')
  t.same(await catalogSnapshot(app), catalog, 'catalog unchanged')
  t.same(tmpLeftovers(app.config.dataDir), [], 'no staging directory left')
  return res
}

/** Edits the GeoSciML fixture as ZIP items. */
function geosciml (edits: Record<string, (s: string) => string> = {}, extra: ZipItem[] = []): Promise<Buffer> {
  return zipItems([...fixtureItems('geosciml', edits), ...extra])
}

/** yazl refuses unsafe names, so the archive is built with a placeholder of the same length and patched. */
async function zipWithRawName (name: string): Promise<Buffer> {
  const placeholder = 'q'.repeat(name.length)
  const zip = await zipItems([...fixtureItems('property'), { name: placeholder, data: 'owned' }])
  const from = Buffer.from(placeholder)
  const to = Buffer.from(name)
  let i = zip.indexOf(from)
  while (i >= 0) { to.copy(zip, i); i = zip.indexOf(from, i + 1) }
  return zip
}

const DOCTYPE = '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n'

t.test('hostile app-schema uploads are refused and change nothing', async (t) => {
  const app = await build(t, { zipMaxBytes: 1024 * 1024, zipMaxEntries: 200 })
  await createWorkspace(app, 'gsml')
  installCache(app.config.dataDir)
  t.equal((await putZip(app, 'gsml', 'geosciml', await fixtureZip('geosciml'), '?configure=all')).statusCode, 200)
  const mainText = fixtureText('geosciml/geosciml.appschema')

  await t.test('a DTD in a single mapping file', async (t) => {
    await refused(t, app, () => putText(app, 'gsml', 'fresh', mainText.replace('<?xml version="1.0" encoding="UTF-8"?>\n', DOCTYPE)), 400,
      'XML documents with a DOCTYPE or entity declarations are not allowed')
  })

  await t.test('an entity declaration in an included mapping file of a ZIP', async (t) => {
    await refused(t, app, async () => putZip(app, 'gsml', 'geosciml', await geosciml({ 'cgi_termvalue.xml': (s) => s.replace('<?xml version="1.0" encoding="UTF-8"?>\n', DOCTYPE).replace('<id>termvalue</id>', '<id>&e;</id>') })), 400,
      'Invalid app-schema mapping (1 problem):\n- cgi_termvalue.xml: (document): XML documents with a DOCTYPE or entity declarations are not allowed')
  })

  await t.test('a DTD in a schema of the ZIP', async (t) => {
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'schemas/cgiUtilities.xsd': (s) => s.replace('<?xml version="1.0" encoding="UTF-8"?>\n', DOCTYPE) })), 400,
      /- schemas\/cgiUtilities\.xsd: \(document\): XML documents with a DOCTYPE or entity declarations are not allowed/)
  })

  await t.test('ZIP entries that leave the target (zip slip, absolute, backslashes)', async (t) => {
    for (const name of ['../../../../tmp/evil.txt', 'sources/../../x.txt', '/etc/cron.d/x', '..\\..\\x', 'C:/x.txt']) {
      await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await zipWithRawName(name)), 400, /^Unsafe ZIP entry /)
    }
  })

  await t.test('a symlink entry', async (t) => {
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await zipItems([...fixtureItems('property'), { name: 'lnk', data: '/etc', mode: 0o120777 }])), 400,
      'Unsafe ZIP entry "lnk": link or special file')
  })

  await t.test('a zip bomb', async (t) => {
    const bomb = await zipItems([...fixtureItems('property'), { name: 'zeros.bin', data: Buffer.alloc(4 * 1024 * 1024) }])
    t.ok(bomb.length < 20000, `bomb is small (${bomb.length} bytes)`)
    await refused(t, app, () => putZip(app, 'gsml', 'fresh', bomb), 413, 'ZIP archive expands past the limit of 1048576 bytes')
  })

  await t.test('too many entries', async (t) => {
    const many = await zipItems([...fixtureItems('property'), ...Array.from({ length: 300 }, (_, i) => ({ name: `e/${i}.txt`, data: '' }))])
    await refused(t, app, () => putZip(app, 'gsml', 'fresh', many), 400, 'ZIP archive has more than 200 entries')
  })

  await t.test('a body that is not a ZIP', async (t) => {
    await refused(t, app, () => putZip(app, 'gsml', 'fresh', Buffer.from(mainText)), 400, /^Not a ZIP archive: /)
  })

  await t.test('a ZIP without an .appschema file', async (t) => {
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await zipItems(fixtureItems('property').filter((i) => !i.name.endsWith('.appschema')))), 400,
      'Could not find appropriate appschema file in archive')
  })

  await t.test('malformed XML, with line and column', async (t) => {
    await refused(t, app, () => putText(app, 'gsml', 'fresh', '<as:AppSchemaDataAccess xmlns:as="http://www.geotools.org/app-schema">\n  <namespaces>\n</as:AppSchemaDataAccess>'), 400,
      /^Malformed XML: .*Line: 2 Column: \d+/)
    await refused(t, app, async () => putZip(app, 'gsml', 'geosciml', await geosciml({ 'geosciml.appschema': (s) => s.replace('</targetTypes>', '</targetType>') })), 400,
      /^Invalid app-schema mapping \(1 problem\):\n- geosciml\.appschema: \(document\): Malformed XML: .*Line: 23 Column: \d+/)
  })

  await t.test('an unknown workspace', async (t) => {
    await refused(t, app, () => putText(app, 'nope', 'fresh', mainText), 404, "No such workspace: 'nope' found")
    await refused(t, app, async () => putZip(app, 'nope', 'fresh', await fixtureZip('property')), 404, "No such workspace: 'nope' found")
  })

  await t.test('an include cycle', async (t) => {
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'cgi_termvalue.xml': (s) => s.replace('<sourceDataStores>', '<includedTypes><Include>./geosciml.appschema</Include></includedTypes><sourceDataStores>') })), 400,
      /cgi_termvalue\.xml: includedTypes\/Include\[1\] "\.\/geosciml\.appschema": include cycle: geosciml\.appschema -> cgi_termvalue\.xml -> geosciml\.appschema/)
  })

  await t.test('[hostile #32] includes, catalogs and schemas that point outside the upload', async (t) => {
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'geosciml.appschema': (s) => s.replace('<Include>cgi_termvalue.xml</Include>', '<Include>../../x.xml</Include>') })), 400,
      'Invalid app-schema mapping (1 problem):\n- geosciml.appschema: includedTypes/Include[1] "../../x.xml": "../../x.xml" points outside the upload')
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'geosciml.appschema': (s) => s.replace('<targetTypes>', '<catalog>/etc/x</catalog><targetTypes>') })), 400,
      /- geosciml\.appschema: catalog "\/etc\/x": "\/etc\/x" is an absolute path; only relative paths inside the upload are allowed/)
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'geosciml.appschema': (s) => s.replace('<schemaUri>schemas/geosciml.xsd</schemaUri>', '<schemaUri>file:///etc/passwd</schemaUri>') })), 400,
      /- geosciml\.appschema: targetTypes\/FeatureType\[1\]\/schemaUri "file:\/\/\/etc\/passwd": "file:\/\/\/etc\/passwd" is an absolute file URL/)
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'schemas/mappedFeature.xsd': (s) => s.replace('schemaLocation="geosciml.xsd"', 'schemaLocation="../../../../etc/x.xsd"') })), 400,
      /- schemas\/mappedFeature\.xsd: xs:include schemaLocation="\.\.\/\.\.\/\.\.\/\.\.\/etc\/x\.xsd": "\.\.\/\.\.\/\.\.\/\.\.\/etc\/x\.xsd" points outside the upload/)
  })

  await t.test('[hostile #32] remote schemas are never fetched: not cached is a 400 naming the schema and the file that refers to it', async (t) => {
    const server = await canary()
    t.teardown(() => server.close())
    const port = new URL(server.url).port
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'geosciml.appschema': (s) => s.replace('<schemaUri>schemas/geosciml.xsd</schemaUri>', `<schemaUri>http://127.0.0.1:${port}/gsml.xsd</schemaUri>`) })), 400,
      new RegExp(`- geosciml\\.appschema: targetTypes/FeatureType\\[1\\]/schemaUri "http://127\\.0\\.0\\.1:${port}/gsml\\.xsd": schema remote schema http://127\\.0\\.0\\.1:${port}/gsml\\.xsd is not in the schema cache \\(app-schema-cache/127\\.0\\.0\\.1/gsml\\.xsd\\) and is never fetched from the network`))
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'schemas/geosciml.xsd': (s) => s.replace('http://schemas.opengis.net/gml/3.1.1/base/gml.xsd', `http://127.0.0.1:${port}/gml.xsd`) })), 400,
      /- schemas\/geosciml\.xsd: xs:import schemaLocation="http:\/\/127\.0\.0\.1:\d+\/gml\.xsd": schema remote schema .* is not in the schema cache/)
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'geosciml.appschema': (s) => s.replace('<schemaUri>schemas/geosciml.xsd</schemaUri>', '<schemaUri>http://169.254.169.254/latest/gsml.xsd</schemaUri>') })), 400,
      /schemaUri "http:\/\/169\.254\.169\.254\/latest\/gsml\.xsd": schema remote schema .* is not in the schema cache .* and is never fetched from the network/)
    t.equal(server.hits(), 0, 'the canary was never called')
  })

  await t.test('[hostile #32] source data outside the upload: property directory and data-store url', async (t) => {
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'geosciml.appschema': (s) => s.replace('<value>file:./sources</value>', '<value>file:../../</value>') })), 400,
      'Invalid app-schema mapping (1 problem):\n- geosciml.appschema: sourceDataStores/DataStore[1] "datastore"/parameters/Parameter "directory": "file:../../" points outside the upload')
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await geosciml({ 'cgi_termvalue.xml': (s) => s.replace('<Parameter><name>directory</name><value>file:./sources</value></Parameter>', '<Parameter><name>url</name><value>file:/etc/passwd</value></Parameter>') })), 400,
      'Invalid app-schema mapping (1 problem):\n- cgi_termvalue.xml: sourceDataStores/DataStore[1] "termvalue"/parameters/Parameter "url": "file:/etc/passwd" is an absolute path; only relative paths inside the upload are allowed')
    await refused(t, app, async () => putZip(app, 'gsml', 'fresh', await zipItems(fixtureItems('property').filter((i) => i.name !== 'stations.properties'))), 400,
      'Invalid app-schema mapping (1 problem):\n- stations.appschema: typeMappings/FeatureTypeMapping[1] (st:Station): sourceType stations: stations.properties is not a file of the upload (data store "props")')
  })

  await t.test('a broken mapping lists every problem with file and element', async (t) => {
    await refused(t, app, async () => putZip(app, 'gsml', 'geosciml', await geosciml({
      'geosciml.appschema': (s) => s.replace('<targetElement>gsml:GeologicEvent</targetElement>', '<targetElement>gsml:Nothing</targetElement>'),
      'cgi_termvalue.xml': (s) => s.replace('<sourceDataStore>termvalue</sourceDataStore>', '<sourceDataStore>elsewhere</sourceDataStore>')
    })), 400, [
      'Invalid app-schema mapping (2 problems):',
      '- geosciml.appschema: typeMappings/FeatureTypeMapping[3] (gsml:Nothing): targetElement gsml:Nothing ({urn:cgi:xmlns:CGI:GeoSciML:2.0}Nothing) is not a global element of the resolved schemas',
      '- cgi_termvalue.xml: typeMappings/FeatureTypeMapping[1] (gsml:CGI_TermValue): sourceDataStore "elsewhere" is not a data store declared in cgi_termvalue.xml (declared: termvalue)'
    ].join('\n'))
  })

  await t.test('bad parameters, names and media types', async (t) => {
    await refused(t, app, () => putText(app, 'gsml', 'fresh', mainText, '?configure=some'), 400, 'Invalid configure value "some": expected first, all or none')
    await refused(t, app, () => putText(app, 'gsml', 'fresh', mainText, '?filename=../x.appschema'), 400, 'Invalid mapping file name: "../x.appschema"')
    await refused(t, app, () => putText(app, 'gsml', '..%2Fx', mainText), 400, 'Invalid data store name: "../x"')
    await refused(t, app, () => putText(app, 'gsml', 'fresh', mainText, '', 'text/plain'), 415,
      'Unsupported media type "text/plain" for a mapping upload; accepted: text/xml, application/xml, application/zip')
    await refused(t, app, () => app.inject({ method: 'PUT', url: `${REST}/workspaces/gsml/datastores/fresh/file.appschema`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"a":1}' }), 415,
      /^Unsupported media type "application\/json"/)
  })
})
