// SQL views (GeoServer's JDBC_VIRTUAL_TABLE metadata entry) on a PostGIS store the test creates:
// published as the Python geoserver-rest client's publish_featurestore_sqlview sends it, the
// attributes described from the SELECT, the entry returned by GET as GeoServer writes it (XML and
// JSON) and accepted back; read through viewparams on WFS GetFeature, WMS GetMap and
// GetFeatureInfo, each value checked against its regexpValidator and bound, never pasted; bad SQL,
// a missing geometry and a statement that writes refused at publish with nothing stored.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, basic, ADMIN, BASE } from '../../helper.js'
import { postgisStore } from '../../fixtures/postgis-store.js'
import { at, pixels, wmsUrl } from '../wms/helpers.js'

const REST = `${BASE}/rest`
const FT = `${REST}/workspaces/vx/datastores/db/featuretypes`

// A 400x400 map of lon -5..35, lat -5..35: lon x is pixel (x+5)*10, lat y is row (35-y)*10.
const TABLES = `
  CREATE TABLE towns (id integer PRIMARY KEY, name text, kind text, pop integer, geom geometry(Point, 4326));
  INSERT INTO towns VALUES (1, 'Alpha', 'city', 1000, ST_SetSRID(ST_MakePoint(5, 30), 4326)),
    (2, 'Beta', 'village', 50, ST_SetSRID(ST_MakePoint(25, 30), 4326)),
    (3, 'Gamma', 'city', 500, ST_SetSRID(ST_MakePoint(15, 5), 4326));
  CREATE SEQUENCE counter;
`

const SQL = "SELECT id, name, pop, geom FROM towns WHERE kind = '%kind%' AND pop >= %minpop%"

// What the Python client's publish_featurestore_sqlview POSTs (text/xml), with two parameters and a key column.
const viewXml = (name: string, sql: string, geometry = 'geom', params = `<parameter><name>kind</name><defaultValue>city</defaultValue><regexpValidator>^[\\w\\d\\s]+$</regexpValidator></parameter>
          <parameter><name>minpop</name><defaultValue>0</defaultValue><regexpValidator>^\\d+$</regexpValidator></parameter>`) => `<featureType>
  <name>${name}</name>
  <enabled>true</enabled>
  <namespace>
    <name>vx</name>
  </namespace>
  <title>${name}</title>
  <srs>EPSG:4326</srs>
  <metadata>
    <entry key="JDBC_VIRTUAL_TABLE">
      <virtualTable>
        <name>${name}</name>
        <sql>${sql.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</sql>
        <escapeSql>true</escapeSql>
        <keyColumn>id</keyColumn>
        <geometry>
          <name>${geometry}</name>
          <type>Point</type>
          <srid>4326</srid>
        </geometry>
        ${params}
      </virtualTable>
    </entry>
  </metadata>
</featureType>`

async function setup (t: Test): Promise<FastifyInstance> {
  const app = await build(t)
  await postgisStore(t, app, TABLES, { store: 'db' })
  return app
}

const publish = (app: FastifyInstance, body: string) => app.inject({ method: 'POST', url: FT, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: body })

async function features (app: FastifyInstance, extra: Record<string, string>): Promise<Array<{ id: string, properties: Record<string, unknown> }>> {
  const q = new URLSearchParams({ service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'vx:towns_by_kind', outputFormat: 'application/json', sortBy: 'name', ...extra })
  const res = await app.inject({ url: `${BASE}/wfs?${q}`, headers: ADMIN })
  if (res.statusCode !== 200) throw new Error(`GetFeature ${res.statusCode}: ${res.body.slice(0, 400)}`)
  return res.json().features
}

t.test('an SQL view is published from its metadata entry, described from its SELECT and returned as GeoServer writes it', async (t) => {
  const app = await setup(t)
  let res = await publish(app, viewXml('towns_by_kind', SQL))
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'towns_by_kind')

  res = await app.inject({ url: `${FT}/towns_by_kind.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.match(res.body, `  <enabled>true</enabled>
  <metadata>
    <entry key="JDBC_VIRTUAL_TABLE">
      <virtualTable>
        <name>towns_by_kind</name>
        <sql>SELECT id, name, pop, geom FROM towns WHERE kind = &apos;%kind%&apos; AND pop &gt;= %minpop%</sql>
        <escapeSql>true</escapeSql>
        <keyColumn>id</keyColumn>
        <geometry>
          <name>geom</name>
          <type>Point</type>
          <srid>4326</srid>
        </geometry>
        <parameter>
          <name>kind</name>
          <defaultValue>city</defaultValue>
          <regexpValidator>^[\\w\\d\\s]+$</regexpValidator>
        </parameter>
        <parameter>
          <name>minpop</name>
          <defaultValue>0</defaultValue>
          <regexpValidator>^\\d+$</regexpValidator>
        </parameter>
      </virtualTable>
    </entry>
  </metadata>
  <store class="dataStore">`)
  t.match(res.body, '<nativeName>towns_by_kind</nativeName>')

  res = await app.inject({ url: `${FT}/towns_by_kind.json`, headers: ADMIN })
  const doc = res.json()
  const ft = doc.featureType
  t.same(ft.metadata, { entry: [{ '@key': 'JDBC_VIRTUAL_TABLE', virtualTable: {
    name: 'towns_by_kind', sql: SQL, escapeSql: true, keyColumn: ['id'],
    geometry: [{ name: 'geom', type: 'Point', srid: 4326 }],
    parameter: [{ name: 'kind', defaultValue: 'city', regexpValidator: '^[\\w\\d\\s]+$' }, { name: 'minpop', defaultValue: '0', regexpValidator: '^\\d+$' }]
  } }] })
  // The key column makes the ids; the other columns are the attributes, typed as the SELECT's.
  t.same(ft.attributes.attribute.map((a: { name: string, binding: string }) => [a.name, a.binding]),
    [['name', 'java.lang.String'], ['pop', 'java.lang.Integer'], ['geom', 'org.locationtech.jts.geom.Point']])
  // Bounds of the rows the defaults give (the two cities).
  t.same([ft.nativeBoundingBox.minx, ft.nativeBoundingBox.miny, ft.nativeBoundingBox.maxx, ft.nativeBoundingBox.maxy], [5, 5, 15, 30])
  res = await app.inject({ url: `${REST}/layers/vx:towns_by_kind.json`, headers: ADMIN })
  t.equal(res.json().layer.defaultStyle.name, 'point')

  // GET, then PUT the same document back: accepted, nothing changes.
  res = await app.inject({ method: 'PUT', url: `${FT}/towns_by_kind.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: doc })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: `${FT}/towns_by_kind.json`, headers: ADMIN })
  t.same(res.json().featureType.metadata, ft.metadata)
  t.same(res.json().featureType.attributes, ft.attributes)

  // A new SELECT through PUT (JSON): described again, its attributes follow.
  const changed = structuredClone(doc)
  changed.featureType.metadata.entry[0].virtualTable.sql = "SELECT id, name, geom FROM towns WHERE kind = '%kind%' AND pop >= %minpop%"
  delete changed.featureType.attributes
  res = await app.inject({ method: 'PUT', url: `${FT}/towns_by_kind.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: changed })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: `${FT}/towns_by_kind.json`, headers: ADMIN })
  t.same(res.json().featureType.attributes.attribute.map((a: { name: string }) => a.name), ['name', 'geom'])
})

t.test('viewparams are checked against their expressions and bound on WFS, WMS GetMap and GetFeatureInfo', async (t) => {
  const app = await setup(t)
  t.equal((await publish(app, viewXml('towns_by_kind', SQL))).statusCode, 201)

  // WFS: the defaults (cities), then other values, escaped separators and an unknown parameter ignored.
  let fs = await features(app, {})
  t.same(fs.map((f) => [f.id, f.properties.name]), [['towns_by_kind.1', 'Alpha'], ['towns_by_kind.3', 'Gamma']])
  fs = await features(app, { viewparams: 'kind:village' })
  t.same(fs.map((f) => f.properties.name), ['Beta'])
  fs = await features(app, { viewparams: 'kind:city;minpop:600;other:x' })
  t.same(fs.map((f) => f.properties.name), ['Alpha'])
  const hits = await app.inject({ url: `${BASE}/wfs?service=WFS&version=2.0.0&request=GetFeature&typeNames=vx:towns_by_kind&resultType=hits&viewparams=minpop:100`, headers: ADMIN })
  t.match(hits.body, 'numberMatched="2"')

  // A value its expression refuses: an OGC exception naming the parameter, nothing read.
  let res = await app.inject({ url: `${BASE}/wfs?service=WFS&version=2.0.0&request=GetFeature&typeNames=vx:towns_by_kind&viewparams=${encodeURIComponent("kind:city' OR '1'='1")}`, headers: ADMIN })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'exceptionCode="InvalidParameterValue" locator="viewparams"')
  t.match(res.body, 'parameter kind does not match its regexpValidator')
  res = await app.inject({ url: `${BASE}/wfs?service=WFS&version=2.0.0&request=GetFeature&typeNames=vx:towns_by_kind&viewparams=minpop:-1`, headers: ADMIN })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'parameter minpop does not match')

  // WMS GetMap: the default point style's red squares where the view's rows are.
  const map = async (extra: Record<string, string>) => {
    const r = await app.inject({ url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', layers: 'vx:towns_by_kind', styles: '', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 400, height: 400, format: 'image/png', transparent: 'true', ...extra }), headers: ADMIN })
    t.equal(r.headers['content-type'], 'image/png', r.body.slice(0, 300))
    const p = await pixels(r.rawPayload)
    return [at(p, 100, 50), at(p, 300, 50), at(p, 200, 300)].map((px) => px[3] === 255 && px[0] === 255 && px[1] === 0)
  }
  t.same(await map({}), [true, false, true], 'the defaults: Alpha and Gamma')
  t.same(await map({ viewparams: 'kind:village' }), [false, true, false], 'villages: Beta')
  t.same(await map({ viewparams: 'minpop:600' }), [true, false, false], 'cities of 600 or more: Alpha')
  res = await app.inject({ url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', layers: 'vx:towns_by_kind', styles: '', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 40, height: 40, format: 'image/png', viewparams: 'kind:a;b' }), headers: ADMIN })
  // WMS 1.1.1 answers its exceptions with 200 (GeoServer's default), in its exception media type.
  t.equal(res.headers['content-type'], 'application/vnd.ogc.se_xml; charset=utf-8')
  t.match(res.body, 'code="InvalidParameterValue"')
  t.match(res.body, 'Invalid viewparams: &quot;b&quot; is not name:value')

  // GetFeatureInfo at Beta's pixel: nothing by default, Beta with kind:village.
  const info = async (extra: Record<string, string>) => {
    const r = await app.inject({ url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetFeatureInfo', layers: 'vx:towns_by_kind', query_layers: 'vx:towns_by_kind', styles: '', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 400, height: 400, format: 'image/png', info_format: 'application/json', x: '300', y: '50', ...extra }), headers: ADMIN })
    t.equal(r.statusCode, 200, r.body.slice(0, 300))
    return r.json().features.map((f: { properties: { name: string } }) => f.properties.name)
  }
  t.same(await info({}), [])
  t.same(await info({ viewparams: 'kind:village' }), ['Beta'])
})

t.test('a value is bound, never pasted into the SQL', async (t) => {
  const app = await setup(t)
  // No validator: whatever is sent is compared as a value.
  const res = await publish(app, viewXml('towns_by_kind', "SELECT id, name, geom FROM towns WHERE name = '%name%' OR name LIKE '%%prefix%%'", 'geom',
    '<parameter><name>name</name><defaultValue>Alpha</defaultValue></parameter><parameter><name>prefix</name><defaultValue>none</defaultValue></parameter>'))
  t.equal(res.statusCode, 201, res.body)
  t.same((await features(app, {})).map((f) => f.properties.name), ['Alpha'])
  t.same((await features(app, { viewparams: "name:x' OR 'a'\\:'a" })).map((f) => f.properties.name), [], 'a quote is part of the value')
  t.same((await features(app, { viewparams: "name:x' OR '1'='1" })).map((f) => f.properties.name), [])
  t.same((await features(app, { viewparams: 'prefix:Gam' })).map((f) => f.properties.name), ['Alpha', 'Gamma'], "'%%prefix%%' is the value inside the literal's text (and the default name still matches Alpha)")
  t.same((await features(app, { viewparams: 'name:Beta\\;x;prefix:Alp' })).map((f) => f.properties.name), ['Alpha'], 'an escaped ; is part of the value')
})

t.test('a view the database refuses, or that writes, is a 400 naming the problem; nothing is stored', async (t) => {
  const app = await setup(t)
  const refused = async (body: string, why: string | RegExp) => {
    const res = await publish(app, body)
    t.equal(res.statusCode, 400)
    t.match(res.body, why)
  }
  await refused(viewXml('bad', 'SELEC id, geom FROM towns'), 'Invalid SQL view: the database refuses the SQL of bad: syntax error at or near')
  await refused(viewXml('bad', 'SELECT id, geom FROM nowhere'), 'relation "nowhere" does not exist')
  await refused(viewXml('bad', 'SELECT id, name FROM towns'), 'has no geometry column "geom" (columns: id, name)')
  await refused(viewXml('bad', "SELECT id, geom, nextval('counter') AS n FROM towns"), 'cannot execute nextval() in a read-only transaction')
  await refused(viewXml('bad', 'SELECT id, geom FROM towns; DROP TABLE towns'), 'the database refuses the SQL of bad')
  await refused(viewXml('bad', 'SELECT id, geom FROM "%kind%"'), 'a parameter placeholder inside a quoted identifier cannot be bound')
  await refused(viewXml('bad', 'SELECT id, geom FROM towns WHERE id = $1'), 'may not hold positional parameters')
  await refused(viewXml('bad', SQL, 'geom', '<parameter><name>kind</name><defaultValue>it\'s</defaultValue><regexpValidator>^\\w+$</regexpValidator></parameter>'), 'the defaultValue "it\'s" of parameter kind does not match its regexpValidator')
  await refused(viewXml('bad', SQL, 'geom', '<parameter><name>kind</name><regexpValidator>^[</regexpValidator></parameter>'), 'the regexpValidator of parameter kind is not a regular expression')
  // Publishing is an administrator's: another user is refused before the SQL is looked at.
  const user = await app.inject({ method: 'POST', url: `${REST}/security/usergroup/users`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { user: { userName: 'joe', password: 'joe-long-password', enabled: true } } })
  t.equal(user.statusCode, 201, user.body)
  const asJoe = await app.inject({ method: 'POST', url: FT, headers: { authorization: basic('joe', 'joe-long-password'), 'content-type': 'text/xml' }, payload: viewXml('mine', SQL) })
  t.equal(asJoe.statusCode, 403)
  const list = await app.inject({ url: `${FT}.json`, headers: ADMIN })
  t.same(list.json(), { featureTypes: '' }, 'no feature type was stored')
  // The table is still there (the DROP never ran): published as a table, its three rows read.
  const table = await app.inject({ method: 'POST', url: FT, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { featureType: { name: 'towns' } } })
  t.equal(table.statusCode, 201, table.body)
  const hits = await app.inject({ url: `${BASE}/wfs?service=WFS&version=2.0.0&request=GetFeature&typeNames=vx:towns&resultType=hits`, headers: ADMIN })
  t.match(hits.body, 'numberMatched="3"')
})

t.test('an SQL view is read-only: a WFS Transaction on it is refused and changes nothing', async (t) => {
  const app = await setup(t)
  t.equal((await publish(app, viewXml('towns_by_kind', SQL))).statusCode, 201)
  const res = await app.inject({ method: 'POST', url: `${BASE}/wfs`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: `<wfs:Transaction service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0">
  <wfs:Delete typeName="vx:towns_by_kind"><fes:Filter><fes:ResourceId rid="towns_by_kind.1"/></fes:Filter></wfs:Delete></wfs:Transaction>` })
  t.match(res.body, 'exceptionCode="OperationNotSupported"')
  t.match(res.body, 'vx:towns_by_kind is an SQL view, which is read-only')
  t.same((await features(app, {})).map((f) => f.properties.name), ['Alpha', 'Gamma'])
})
