import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkMapping } from '../../../services/appschema/mapping.js'
import { parsePropertyFile, wktBounds, lonLatBounds } from '../../../services/appschema/properties.js'
import { resolveRef } from '../../../services/appschema/references.js'
import { tempDir } from '../../helper.js'

// dist/test/services/appschema -> project root
const FIXTURES = fileURLToPath(new URL('../../../../test/fixtures/appschema/', import.meta.url))

function copyFixture (t: Parameters<typeof tempDir>[0], name: string): { root: string, cacheDir: string } {
  const dir = tempDir(t, 'mw-appschema')
  const root = path.join(dir, 'upload')
  fs.cpSync(path.join(FIXTURES, name), root, { recursive: true })
  const cacheDir = path.join(dir, 'app-schema-cache')
  fs.cpSync(path.join(FIXTURES, 'cache'), cacheDir, { recursive: true })
  return { root, cacheDir }
}

function edit (file: string, from: string, to: string): void {
  const text = fs.readFileSync(file, 'utf8')
  if (!text.includes(from)) throw new Error(`fixture edit: ${from} not found in ${file}`)
  fs.writeFileSync(file, text.replace(from, to))
}

t.test('a GeoSciML-like mapping resolves its include, mutually including schemas and the cached GML', async (t) => {
  const { root, cacheDir } = copyFixture(t, 'geosciml')
  const report = await checkMapping({ uploadRoot: root, mainFile: 'geosciml.appschema', cacheDir })
  t.same(report.files, ['geosciml.appschema', 'cgi_termvalue.xml'])
  t.same(report.featureTypes.map((f) => f.name), ['GeologicUnit', 'MappedFeature', 'GeologicEvent'])
  t.same(report.schemas.sort(), [
    'http://schemas.opengis.net/gml/3.1.1/base/feature.xsd',
    'http://schemas.opengis.net/gml/3.1.1/base/gml.xsd',
    'schemas/cgiUtilities.xsd',
    'schemas/geologicUnit.xsd',
    'schemas/geosciml.xsd',
    'schemas/mappedFeature.xsd'
  ])
  const mf = report.featureTypes[1]
  t.equal(mf.srs, 'EPSG:4326')
  t.same(mf.nativeBbox, [-1.5, 52, -0.5, 52.75])
  t.same(mf.latLonBbox, [-1.5, 52, -0.5, 52.75])
  t.same(mf.attributes.map((a) => a.name), ['name', 'boundedBy', 'observationMethod', 'positionalAccuracy', 'specification', 'shape'])
  t.same(mf.attributes.find((a) => a.name === 'shape'), { name: 'shape', minOccurs: 1, maxOccurs: 1, nillable: false, binding: 'org.locationtech.jts.geom.Geometry' })
  t.same(mf.attributes.find((a) => a.name === 'observationMethod'), { name: 'observationMethod', minOccurs: 1, maxOccurs: 2147483647, nillable: false })
  t.equal(report.featureTypes[0].srs, undefined, 'a source without geometry has no SRS')
  t.same(report.sources.map((s) => [s.id, s.file, s.kind, s.directory]), [['datastore', 'geosciml.appschema', 'property', 'sources'], ['termvalue', 'cgi_termvalue.xml', 'property', 'sources']])
})

t.test('a remote schema missing from the cache is named with the file that imports it', async (t) => {
  const { root, cacheDir } = copyFixture(t, 'geosciml')
  fs.rmSync(cacheDir, { recursive: true })
  await t.rejects(checkMapping({ uploadRoot: root, mainFile: 'geosciml.appschema', cacheDir }), {
    code: 'MW_APPSCHEMA_INVALID_MAPPING',
    message: /schemas\/geosciml\.xsd: xs:import schemaLocation="http:\/\/schemas\.opengis\.net\/gml\/3\.1\.1\/base\/gml\.xsd": schema remote schema http:\/\/schemas\.opengis\.net\/gml\/3\.1\.1\/base\/gml\.xsd is not in the schema cache \(app-schema-cache\/schemas\.opengis\.net\/gml\/3\.1\.1\/base\/gml\.xsd\)/
  })
})

t.test('every problem is listed with its file and element', async (t) => {
  const { root, cacheDir } = copyFixture(t, 'geosciml')
  edit(path.join(root, 'geosciml.appschema'), '<targetElement>gsml:GeologicEvent</targetElement>', '<targetElement>gsml:NoSuchThing</targetElement>')
  edit(path.join(root, 'geosciml.appschema'), '<sourceDataStore>datastore</sourceDataStore>\n      <sourceType>mappedfeature</sourceType>', '<sourceDataStore>nowhere</sourceDataStore>\n      <sourceType>mappedfeature</sourceType>')
  edit(path.join(root, 'cgi_termvalue.xml'), '<targetElement>gsml:CGI_TermValue</targetElement>', '<targetElement>xx:CGI_TermValue</targetElement>')
  const err = await checkMapping({ uploadRoot: root, mainFile: 'geosciml.appschema', cacheDir }).catch((e) => e)
  t.equal(err.message, [
    'Invalid app-schema mapping (3 problems):',
    '- geosciml.appschema: typeMappings/FeatureTypeMapping[2] (gsml:MappedFeature): sourceDataStore "nowhere" is not a data store declared in geosciml.appschema (declared: datastore)',
    '- geosciml.appschema: typeMappings/FeatureTypeMapping[3] (gsml:NoSuchThing): targetElement gsml:NoSuchThing ({urn:cgi:xmlns:CGI:GeoSciML:2.0}NoSuchThing) is not a global element of the resolved schemas',
    '- cgi_termvalue.xml: typeMappings/FeatureTypeMapping[1] (xx:CGI_TermValue): targetElement xx:CGI_TermValue: namespace prefix "xx" is not declared in namespaces'
  ].join('\n'))
})

t.test('include cycles are refused and name the chain', async (t) => {
  const { root, cacheDir } = copyFixture(t, 'geosciml')
  edit(path.join(root, 'cgi_termvalue.xml'), '<sourceDataStores>', '<includedTypes><Include>geosciml.appschema</Include></includedTypes>\n  <sourceDataStores>')
  await t.rejects(checkMapping({ uploadRoot: root, mainFile: 'geosciml.appschema', cacheDir }), {
    message: /cgi_termvalue\.xml: includedTypes\/Include\[1\] "geosciml\.appschema": include cycle: geosciml\.appschema -> cgi_termvalue\.xml -> geosciml\.appschema/
  })
})

t.test('an OASIS catalog maps a remote schema onto a file of the upload', async (t) => {
  const { root, cacheDir } = copyFixture(t, 'property')
  fs.mkdirSync(path.join(root, 'schemas'))
  fs.renameSync(path.join(root, 'stations.xsd'), path.join(root, 'schemas', 'stations.xsd'))
  edit(path.join(root, 'stations.appschema'), '<schemaUri>stations.xsd</schemaUri>', '<schemaUri>http://example.org/schemas/stations/1.0/stations.xsd</schemaUri>')
  edit(path.join(root, 'stations.appschema'), '<targetTypes>', '<catalog>catalog.xml</catalog>\n  <targetTypes>')
  fs.writeFileSync(path.join(root, 'catalog.xml'), '<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog"><rewriteURI uriStartString="http://example.org/schemas/stations/1.0/" rewritePrefix="./schemas/"/></catalog>')
  fs.rmSync(cacheDir, { recursive: true })
  const report = await checkMapping({ uploadRoot: root, mainFile: 'stations.appschema', cacheDir })
  t.same(report.schemas, ['schemas/stations.xsd'])
  t.same(report.featureTypes.map((f) => [f.name, f.srs, f.latLonBbox]), [['Stations', 'EPSG:4283', [138.5, -37.75, 151.25, -33.5]]])
})

t.test('references: relative paths stay in the upload, absolute paths and other schemes are refused', async (t) => {
  const from = { kind: 'upload' as const, rel: 'maps/main.appschema' }
  t.same(resolveRef('../schemas/a.xsd', from), { loc: { kind: 'upload', rel: 'schemas/a.xsd' } })
  t.same(resolveRef('file:./', from), { loc: { kind: 'upload', rel: 'maps' } })
  t.match(resolveRef('../../x.xml', from).problem, /points outside the upload/)
  t.match(resolveRef('/etc/x', from).problem, /absolute path/)
  t.match(resolveRef('file:/etc/passwd', from).problem, /absolute path/)
  t.match(resolveRef('file:///etc/passwd', from).problem, /absolute file URL/)
  t.match(resolveRef('C:\\x.xsd', from).problem, /backslashes/)
  t.match(resolveRef('jar:file:/x!/a.xsd', from).problem, /unsupported URL scheme/)
  t.same(resolveRef('http://10.0.0.1/a.xsd', from), { loc: { kind: 'cache', url: 'http://10.0.0.1/a.xsd' } })
  t.same(resolveRef('b.xsd', { kind: 'cache', url: 'http://h.org/s/a.xsd' }), { loc: { kind: 'cache', url: 'http://h.org/s/b.xsd' } })
})

t.test('property files: header, WKT bounds and lon/lat conversion', async (t) => {
  const info = parsePropertyFile('_=NAME:String,GEOM:LineString:srid=3857\nf1=a|LINESTRING(0 0, 1113194.9079327357 1118889.9748579594)\nf2=b|\n')
  t.equal(info.features, 2)
  t.equal(info.srid, 3857)
  t.same(info.bbox, [0, 0, 1113194.9079327357, 1118889.9748579594])
  const ll = lonLatBounds(3857, info.bbox!)!
  t.ok(Math.abs(ll[2] - 10) < 1e-9 && Math.abs(ll[3] - 10) < 1e-9)
  t.same(wktBounds('POINT Z (1 2 3)'), [1, 2, 1, 2])
  t.equal(wktBounds('POINT EMPTY'), undefined)
  t.match(parsePropertyFile('a=b').problem, /no "_=" header/)
})
