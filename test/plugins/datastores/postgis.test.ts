// PostGIS data stores through GeoServer's REST API: POST in the entry and child-element forms (XML
// and JSON), GET (XML, JSON, suffix and Accept), PUT, DELETE with recurse, the one name space with
// app-schema stores, the sealed password, and the connection check against the local PostgreSQL
// (a throwaway database with PostGIS, one without it, hosts and ports where nothing answers).
import t, { type Test } from 'tap'
import fs from 'node:fs'
import net from 'node:net'
import pg from 'pg'
import path from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN, BASE, TEST_BACKEND, tempDir } from '../../helper.js'
import { pgDatabase } from '../../fixtures/pg.js'
import { appRows, withAppDb } from '../../fixtures/catalog-rows.js'
import { createCatalogRowWriter } from '../../../services/catalog/sqlite-catalog-rows.js'
import { createPgCatalogRowWriter, type ResourceRow } from '../../../services/catalog/pg-catalog-rows.js'
import { createWorkspace, fixtureZip, installCache, putZip } from '../appschema/helpers.js'

const REST = `${BASE}/rest`
const PASSWORD = 'S3cret-Pässwörd-x9'

/** A database with PostGIS on the local server, and its parts as connection parameters. */
async function postgisDb (t: Test, postgis = true) {
  const url = new URL(await pgDatabase(t, { postgis }))
  return { host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1), user: decodeURIComponent(url.username) || 'postgres' }
}
type Db = Awaited<ReturnType<typeof postgisDb>>

/** A TCP port on 127.0.0.1 where nothing listens. */
async function closedPort (): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

function entriesXml (params: Record<string, string>): string {
  return Object.entries(params).map(([k, v]) => `<entry key="${k}">${v}</entry>`).join('')
}

function postXml (app: FastifyInstance, ws: string, body: string, url = `${REST}/workspaces/${ws}/datastores`): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: body })
}
function postJson (app: FastifyInstance, ws: string, body: unknown): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: `${REST}/workspaces/${ws}/datastores`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify(body) })
}
function putXml (app: FastifyInstance, ws: string, store: string, body: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'PUT', url: `${REST}/workspaces/${ws}/datastores/${store}`, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: body })
}
function get (app: FastifyInstance, url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: `${REST}${url}`, headers: { ...ADMIN, ...headers } })
}
async function params (app: FastifyInstance, ws: string, store: string): Promise<Record<string, string>> {
  const r = await get(app, `/workspaces/${ws}/datastores/${store}.json`)
  return Object.fromEntries(JSON.parse(r.body).dataStore.connectionParameters.entry.map((e: { '@key': string, $: string }) => [e['@key'], e.$]))
}
async function storeNames (app: FastifyInstance, ws: string): Promise<string[]> {
  const r = await get(app, `/workspaces/${ws}/datastores.json`)
  const body = JSON.parse(r.body)
  return body.dataStores === '' ? [] : body.dataStores.dataStore.map((s: { name: string }) => s.name)
}
const storeXml = (name: string, db: Db, extra: Record<string, string> = {}) =>
  `<dataStore><name>${name}</name><connectionParameters>${entriesXml({ host: db.host, port: db.port, database: db.database, user: db.user, passwd: PASSWORD, dbtype: 'postgis', ...extra })}</connectionParameters></dataStore>`

t.test('POST with <entry key> parameters creates the store: 201, its name, a Location; GET shows it as GeoServer does, the password as a crypt2: token', async (t) => {
  const app = await build(t)
  const db = await postgisDb(t)
  await createWorkspace(app, 'vx')
  const res = await postXml(app, 'vx', `<dataStore><name>nyc</name><description>New York</description><type>PostGIS</type>
    <connectionParameters>${entriesXml({ host: db.host, port: db.port, database: db.database, schema: 'public', user: db.user, passwd: PASSWORD, dbtype: 'postgis', 'Expose primary keys': 'TRUE', 'max connections': '10', 'min connections': '1', 'fetch size': '1000', 'Connection timeout': '5', 'Loose bbox': 'true', 'Estimated extends': 'false', 'validate connections': 'true', 'Some future key': 'kept as sent' })}</connectionParameters></dataStore>`)
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'nyc')
  t.match(res.headers['content-type'], /^text\/plain/)
  t.equal(res.headers.location, `http://localhost:80${REST}/workspaces/vx/datastores/nyc`)

  const xml = await get(app, '/workspaces/vx/datastores/nyc.xml')
  t.equal(xml.statusCode, 200)
  t.equal(xml.headers['content-type'], 'application/xml')
  const token = /<entry key="passwd">(crypt2:[^<]+)<\/entry>/.exec(xml.body)?.[1]
  t.ok(token, 'the password is shown as a crypt2: token')
  t.notOk(xml.body.includes(PASSWORD), 'never the password itself')
  t.equal(xml.body, [
    '<dataStore>',
    '  <name>nyc</name>',
    '  <description>New York</description>',
    '  <type>PostGIS</type>',
    '  <enabled>true</enabled>',
    '  <workspace>',
    '    <name>vx</name>',
    `    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80${REST}/workspaces/vx.xml" type="application/xml"/>`,
    '  </workspace>',
    '  <connectionParameters>',
    `    <entry key="host">${db.host}</entry>`,
    `    <entry key="port">${db.port}</entry>`,
    `    <entry key="database">${db.database}</entry>`,
    '    <entry key="schema">public</entry>',
    `    <entry key="user">${db.user}</entry>`,
    `    <entry key="passwd">${token}</entry>`,
    '    <entry key="dbtype">postgis</entry>',
    '    <entry key="Expose primary keys">true</entry>',
    '    <entry key="max connections">10</entry>',
    '    <entry key="min connections">1</entry>',
    '    <entry key="fetch size">1000</entry>',
    '    <entry key="Connection timeout">5</entry>',
    '    <entry key="Loose bbox">true</entry>',
    '    <entry key="Estimated extends">false</entry>',
    '    <entry key="validate connections">true</entry>',
    '    <entry key="Some future key">kept as sent</entry>',
    '    <entry key="namespace">http://mapwarden.org/ns/vx</entry>',
    '  </connectionParameters>',
    '  <__default>false</__default>',
    '  <featureTypes>',
    `    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80${REST}/workspaces/vx/datastores/nyc/featuretypes.xml" type="application/xml"/>`,
    '  </featureTypes>',
    '</dataStore>'
  ].join('\n'))

  const json = await get(app, '/workspaces/vx/datastores/nyc', { accept: 'application/json' })
  t.equal(json.statusCode, 200)
  t.equal(json.headers['content-type'], 'application/json; charset=utf-8')
  const ds = JSON.parse(json.body).dataStore
  t.equal(ds.name, 'nyc')
  t.equal(ds.type, 'PostGIS')
  t.equal(ds.enabled, true)
  t.equal(ds._default, false)
  t.same(ds.workspace, { name: 'vx', href: `http://localhost:80${REST}/workspaces/vx.json` })
  t.same(ds.connectionParameters.entry[5], { '@key': 'passwd', $: token })
  t.equal(ds.featureTypes, `http://localhost:80${REST}/workspaces/vx/datastores/nyc/featuretypes.json`)
  t.notOk(json.body.includes(PASSWORD))

  const list = await get(app, '/workspaces/vx/datastores.xml')
  t.equal(list.body, [
    '<dataStores>',
    '  <dataStore>',
    '    <name>nyc</name>',
    `    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80${REST}/workspaces/vx/datastores/nyc.xml" type="application/atom+xml"/>`,
    '  </dataStore>',
    '</dataStores>'
  ].join('\n'))
  t.same(await storeNames(app, 'vx'), ['nyc'])
  // A feature type list of the new store: none yet.
  t.equal((await get(app, '/workspaces/vx/datastores/nyc/featuretypes.json')).statusCode, 200)

  // The catalog keeps only the sealed token.
  const rows = await appRows(app, 'SELECT config FROM stores WHERE workspace = $1 AND name = $2', ['vx', 'nyc'])
  t.notOk(rows[0].config.includes(PASSWORD), 'the catalog row holds no clear password')
  t.equal(JSON.parse(rows[0].config).connectionParameters.passwd, token)
  if (TEST_BACKEND === 'sqlite') {
    for (const f of fs.readdirSync(app.config.dataDir).filter((n) => n.startsWith('catalog'))) {
      t.notOk(fs.readFileSync(path.join(app.config.dataDir, f)).includes(Buffer.from(PASSWORD)), `${f} holds no clear password`)
    }
  }
})

t.test('POST in the child-element XML form and both JSON forms; unknown keys are kept', async (t) => {
  const app = await build(t)
  const db = await postgisDb(t)
  await createWorkspace(app, 'vx')
  let res = await postXml(app, 'vx', `<dataStore><name>child</name><connectionParameters><host>${db.host}</host><port>${db.port}</port><database>${db.database}</database><user>${db.user}</user><dbtype>postgis</dbtype><extraKey>x</extraKey></connectionParameters></dataStore>`)
  t.equal(res.statusCode, 201, res.body)
  t.same(await params(app, 'vx', 'child'), { host: db.host, port: db.port, database: db.database, user: db.user, dbtype: 'postgis', extraKey: 'x', namespace: 'http://mapwarden.org/ns/vx' })

  res = await postJson(app, 'vx', { dataStore: { name: 'entries', connectionParameters: { entry: [{ '@key': 'host', $: db.host }, { '@key': 'port', $: db.port }, { '@key': 'database', $: db.database }, { '@key': 'user', $: db.user }, { '@key': 'passwd', $: PASSWORD }, { '@key': 'dbtype', $: 'postgis' }] } } })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'entries')
  t.match((await params(app, 'vx', 'entries')).passwd, /^crypt2:/)

  // A plain connectionParameters object with numbers and booleans (geoserver-node-client's createPostgisStore: clients.test.ts).
  res = await postJson(app, 'vx', { dataStore: { name: 'plain', type: 'PostGIS', connectionParameters: { host: db.host, port: Number(db.port), database: db.database, schema: 'public', user: db.user, passwd: PASSWORD, 'Expose primary keys': true } } })
  t.equal(res.statusCode, 201, res.body)
  const p = await params(app, 'vx', 'plain')
  t.equal(p.port, db.port)
  t.equal(p.dbtype, 'postgis', 'dbtype from the type')
  t.equal(p['Expose primary keys'], 'true')
  t.same(await storeNames(app, 'vx'), ['child', 'entries', 'plain'])
})

t.test('a store whose database cannot be reached is refused with 400 and the reason; nothing is stored', async (t) => {
  const app = await build(t)
  const db = await postgisDb(t)
  const plain = await postgisDb(t, false)
  await createWorkspace(app, 'vx')
  const port = await closedPort()
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['unresolvable host', { host: 'no-such-host.invalid' }, /host "no-such-host\.invalid" does not resolve/],
    ['nothing listening', { host: '127.0.0.1', port: String(port) }, new RegExp(`nothing listens at 127\\.0\\.0\\.1:${port}`)],
    ['no such database', { database: 'mw_no_such_database' }, /database "mw_no_such_database" does not exist/],
    ['no such role', { user: 'mw_no_such_role' }, /the server refused user "mw_no_such_role"/],
    ['PostGIS missing', { database: plain.database }, new RegExp(`PostGIS is not installed in database "${plain.database}" \\(CREATE EXTENSION postgis\\)`)],
    ['no such schema', { schema: 'nowhere' }, /schema "nowhere" does not exist/]
  ]
  for (const [what, change, message] of cases) {
    const started = Date.now()
    const res = await postXml(app, 'vx', storeXml('bad', db, change))
    t.equal(res.statusCode, 400, what)
    t.match(res.headers['content-type'], /^text\/plain/)
    t.match(res.body, /^Cannot connect data store 'bad' to its database: /, what)
    t.match(res.body, message, what)
    t.notOk(res.body.includes(PASSWORD), `${what}: no password in the message`)
    t.ok(Date.now() - started < 15000, `${what}: answered within the connection timeout`)
  }
  t.same(await storeNames(app, 'vx'), [])
  t.equal((await get(app, '/workspaces/vx/datastores/bad.xml')).statusCode, 404)
})

t.test('a server that accepts and never answers is given up at the store\'s Connection timeout, with a 400 that says so', async (t) => {
  const app = await build(t)
  const db = await postgisDb(t)
  await createWorkspace(app, 'vx')
  const sockets: net.Socket[] = []
  const silent = net.createServer((socket) => { sockets.push(socket) })
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { for (const s of sockets) s.destroy(); silent.close() })
  const port = (silent.address() as net.AddressInfo).port
  const started = Date.now()
  const res = await postXml(app, 'vx', storeXml('slow', db, { host: '127.0.0.1', port: String(port), 'Connection timeout': '1' }))
  const took = Date.now() - started
  t.equal(res.statusCode, 400)
  t.match(res.body, new RegExp(`no answer from 127\\.0\\.0\\.1:${port} within 1 s \\(Connection timeout\\)`))
  t.ok(took >= 900 && took < 3000, `answered after the timeout, not long past it (${took} ms)`)
  t.same(await storeNames(app, 'vx'), [])
})

t.test('a wrong password is told as such (a server speaking PostgreSQL\'s protocol refuses the login)', async (t) => {
  const app = await build(t)
  const db = await postgisDb(t)
  await createWorkspace(app, 'vx')
  // The local server trusts every login; this one answers the startup message as PostgreSQL does
  // for a wrong password: an ErrorResponse with SQLSTATE 28P01.
  const fields = [['S', 'FATAL'], ['V', 'FATAL'], ['C', '28P01'], ['M', `password authentication failed for user "${db.user}"`]]
  const body = Buffer.concat([...fields.map(([k, v]) => Buffer.from(`${k}${v}\0`)), Buffer.from([0])])
  const header = Buffer.alloc(5)
  header.write('E', 0)
  header.writeInt32BE(body.length + 4, 1)
  const refusing = net.createServer((socket) => socket.once('data', () => socket.end(Buffer.concat([header, body]))))
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { refusing.close() })
  const port = (refusing.address() as net.AddressInfo).port
  const res = await postXml(app, 'vx', storeXml('pw', db, { host: '127.0.0.1', port: String(port) }))
  t.equal(res.statusCode, 400)
  t.equal(res.body, `Cannot connect data store 'pw' to its database: password authentication failed for user "${db.user}"`)
  t.same(await storeNames(app, 'vx'), [])
})

t.test('schema names with quotes, spaces and non-ASCII letters are checked with bound values and work', async (t) => {
  const app = await build(t)
  const db = await postgisDb(t)
  await createWorkspace(app, 'vx')
  const schema = 'Straße "x"; select'
  const c = new pg.Client({ host: db.host, port: Number(db.port), database: db.database, user: db.user })
  await c.connect()
  try { await c.query(`CREATE SCHEMA "${schema.replace(/"/g, '""')}"`) } finally { await c.end() }
  let res = await postJson(app, 'vx', { dataStore: { name: 'odd', connectionParameters: { ...db, schema, dbtype: 'postgis' } } })
  t.equal(res.statusCode, 201, res.body)
  t.equal((await params(app, 'vx', 'odd')).schema, schema)
  res = await postJson(app, 'vx', { dataStore: { name: 'odd2', connectionParameters: { ...db, schema: "nope'; DROP SCHEMA public; --", dbtype: 'postgis' } } })
  t.equal(res.statusCode, 400)
  t.match(res.body, /schema "nope'; DROP SCHEMA public; --" does not exist/)
})

t.test('hostile and malformed bodies get a 4xx and change nothing', async (t) => {
  const app = await build(t)
  const db = await postgisDb(t)
  await createWorkspace(app, 'vx')
  await createWorkspace(app, 'other')
  const cases: Array<[string, string, number, RegExp]> = [
    ['huge name', storeXml('n'.repeat(5000), db), 400, /Invalid .*name/i],
    ['SQL-ish name', storeXml("x'); DROP TABLE stores;--", db), 400, /name/i],
    ['quote in name', storeXml('a"b', db), 400, /name/i],
    ['no name', storeXml('', db), 400, /name is required/],
    ['other dbtype', storeXml('s', db, { dbtype: 'shapefile' }), 400, /Unsupported data store type "shapefile"/],
    ['port not a number', storeXml('s', db, { port: '54x' }), 400, /"port" must be an integer from 1 to 65535: "54x"/],
    ['port out of range', storeXml('s', db, { port: '70000' }), 400, /"port" must be an integer/],
    ['host with spaces', storeXml('s', db, { host: 'a b' }), 400, /"host" is not a host name/],
    ['huge database name', storeXml('s', db, { database: 'd'.repeat(100) }), 400, /"database" is longer than PostgreSQL's 63-byte limit/],
    ['boolean key not a boolean', storeXml('s', db, { 'Loose bbox': 'maybe' }), 400, /"Loose bbox" must be true or false/],
    ['min above max', storeXml('s', db, { 'min connections': '5', 'max connections': '2' }), 400, /"min connections" \(5\) is above "max connections" \(2\)/],
    ['foreign token', storeXml('s', db, { passwd: 'crypt1:KWhO7jrTz/Gi0oTQRKsVeCmWIZY5VZaD' }), 400, /encrypted token this server cannot open/],
    ['unknown field', `<dataStore><name>s</name><color>red</color><connectionParameters>${entriesXml({ host: db.host, database: db.database, user: db.user, dbtype: 'postgis' })}</connectionParameters></dataStore>`, 400, /color/],
    ['class hint', '<dataStore class="java.lang.ProcessBuilder"><name>s</name></dataStore>', 400, /class/],
    ['wrong root', '<coverageStore><name>s</name></coverageStore>', 400, /Expected root element dataStore/],
    ['other workspace', `<dataStore><name>s</name><workspace><name>other</name></workspace><connectionParameters>${entriesXml({ host: db.host, database: db.database, user: db.user, dbtype: 'postgis' })}</connectionParameters></dataStore>`, 403, /Expected workspace vx but client specified other/]
  ]
  for (const [what, body, status, message] of cases) {
    const res = await postXml(app, 'vx', body)
    t.equal(res.statusCode, status, `${what}: ${res.body}`)
    t.match(res.body, message, what)
  }
  t.equal((await postXml(app, 'nowhere', storeXml('s', db))).statusCode, 404, 'unknown workspace')
  const unauth = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/datastores`, headers: { 'content-type': 'text/xml' }, payload: storeXml('s', db) })
  t.equal(unauth.statusCode, 401)
  t.same(await storeNames(app, 'vx'), [])
  t.same(await storeNames(app, 'other'), [])
})

t.test('stores of every type share one name space per workspace: 409 for a taken name, exact or by case', async (t) => {
  const app = await build(t)
  const db = await postgisDb(t)
  await createWorkspace(app, 'gsml')
  installCache(app.config.dataDir)
  t.equal((await putZip(app, 'gsml', 'geosciml', await fixtureZip('geosciml'), '?configure=none')).statusCode, 200)
  let res = await postXml(app, 'gsml', storeXml('geosciml', db))
  t.equal(res.statusCode, 409)
  t.equal(res.body, "Store 'geosciml' already exists in workspace 'gsml'")
  res = await postXml(app, 'gsml', storeXml('GeoSciML', db))
  t.equal(res.statusCode, 409)
  t.match(res.body, /clashes with the existing store 'geosciml'/)
  t.equal((await postXml(app, 'gsml', storeXml('pg', db))).statusCode, 201)
  res = await postXml(app, 'gsml', storeXml('pg', db))
  t.equal(res.statusCode, 409)
  t.equal(res.body, "Store 'pg' already exists in workspace 'gsml'")
  // An app-schema upload cannot take over the PostGIS store.
  res = await putZip(app, 'gsml', 'pg', await fixtureZip('geosciml'))
  t.equal(res.statusCode, 409)
  t.same(await storeNames(app, 'gsml'), ['geosciml', 'pg'])
  // Each store keeps its own representation.
  t.match((await get(app, '/workspaces/gsml/datastores/geosciml.json')).body, /"type":"Application Schema DataAccess"/)
  t.match((await get(app, '/workspaces/gsml/datastores/pg.json')).body, /"type":"PostGIS"/)
  // PUT of the app-schema store's resource is refused; it changes with its mapping.
  res = await putXml(app, 'gsml', 'geosciml', '<dataStore><description>x</description></dataStore>')
  t.equal(res.statusCode, 400)
  t.match(res.body, /file\.appschema/)
})

t.test('PUT merges parameters, keeps the password unless sent, checks the connection, and refuses name and workspace changes', async (t) => {
  const app = await build(t)
  const db = await postgisDb(t)
  await createWorkspace(app, 'vx')
  t.equal((await postXml(app, 'vx', storeXml('nyc', db, { 'Loose bbox': 'false', obsolete: 'x' }))).statusCode, 201)
  const before = await params(app, 'vx', 'nyc')

  let res = await putXml(app, 'vx', 'nyc', `<dataStore><description>changed</description><connectionParameters>${entriesXml({ 'Loose bbox': 'true', 'fetch size': '500', obsolete: '' })}</connectionParameters></dataStore>`)
  t.equal(res.statusCode, 200, res.body)
  let after = await params(app, 'vx', 'nyc')
  t.equal(after.passwd, before.passwd, 'the password is kept when not sent')
  t.equal(after['Loose bbox'], 'true')
  t.equal(after['fetch size'], '500')
  t.equal(after.obsolete, undefined, 'a key sent empty is removed')
  t.match((await get(app, '/workspaces/vx/datastores/nyc.json')).body, /"description":"changed"/)

  // GET-modify-PUT: the document GET gave, sent back, changes nothing (the token included).
  const doc = (await get(app, '/workspaces/vx/datastores/nyc.xml')).body
  res = await putXml(app, 'vx', 'nyc', doc)
  t.equal(res.statusCode, 200, res.body)
  t.equal((await get(app, '/workspaces/vx/datastores/nyc.xml')).body, doc)
  const jsonDoc = (await get(app, '/workspaces/vx/datastores/nyc.json')).body
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/nyc.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: jsonDoc })
  t.equal(res.statusCode, 200, res.body)
  t.equal((await get(app, '/workspaces/vx/datastores/nyc.json')).body, jsonDoc)

  // A new password: sealed anew.
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/nyc.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ dataStore: { connectionParameters: { entry: [{ '@key': 'passwd', $: 'another-one' }] } } }) })
  t.equal(res.statusCode, 200, res.body)
  after = await params(app, 'vx', 'nyc')
  t.not(after.passwd, before.passwd)
  t.match(after.passwd, /^crypt2:/)

  // A change that breaks the connection changes nothing.
  const saved = (await get(app, '/workspaces/vx/datastores/nyc.xml')).body
  res = await putXml(app, 'vx', 'nyc', `<dataStore><connectionParameters><entry key="database">mw_no_such_database</entry></connectionParameters></dataStore>`)
  t.equal(res.statusCode, 400)
  t.match(res.body, /database "mw_no_such_database" does not exist/)
  t.equal((await get(app, '/workspaces/vx/datastores/nyc.xml')).body, saved)

  res = await putXml(app, 'vx', 'nyc', '<dataStore><name>renamed</name></dataStore>')
  t.equal(res.statusCode, 403)
  t.match(res.body, /Can't change the name of a data store/)
  res = await putXml(app, 'vx', 'nyc', '<dataStore><workspace><name>other</name></workspace></dataStore>')
  t.equal(res.statusCode, 403)
  res = await putXml(app, 'vx', 'nyc', '<dataStore><connectionParameters><entry key="dbtype">shapefile</entry></connectionParameters></dataStore>')
  t.equal(res.statusCode, 400)
  t.equal((await get(app, '/workspaces/vx/datastores/nyc.xml')).body, saved)

  // A disabled store is not connected: its parameters may point where nothing answers yet.
  res = await putXml(app, 'vx', 'nyc', '<dataStore><enabled>false</enabled><connectionParameters><entry key="host">no-such-host.invalid</entry></connectionParameters></dataStore>')
  t.equal(res.statusCode, 200, res.body)
  t.match((await get(app, '/workspaces/vx/datastores/nyc.json')).body, /"enabled":false/)
  res = await putXml(app, 'vx', 'nyc', '<dataStore><enabled>true</enabled></dataStore>')
  t.equal(res.statusCode, 400, 'enabling it checks the connection')
  t.match(res.body, /does not resolve/)

  t.equal((await putXml(app, 'vx', 'missing', '<dataStore><description>x</description></dataStore>')).statusCode, 404)
})

t.test('DELETE removes the store; one with feature types only with recurse=true', async (t) => {
  const app = await build(t)
  const db = await postgisDb(t)
  await createWorkspace(app, 'vx')
  t.equal((await postXml(app, 'vx', storeXml('a', db))).statusCode, 201)
  t.equal((await postXml(app, 'vx', storeXml('b', db))).statusCode, 201)
  let res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx/datastores/a`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal((await get(app, '/workspaces/vx/datastores/a.xml')).statusCode, 404)
  t.equal((await get(app, '/workspaces/vx/datastores/a.xml?quietOnNotFound=true')).body, '')
  t.equal((await get(app, '/workspaces/vx/datastores/a.xml')).body, 'No such datastore: vx,a')

  // A feature type on b (written as the catalog will write it when feature types come).
  const ft: ResourceRow = { workspace: 'vx', store: 'b', name: 'roads', kind: 'featureType', nativeName: 'roads', title: 'roads', srs: null, bbox: null, config: '{}' }
  await withAppDb(app, async (o) => {
    if (o.backend === 'pg') await o.db.transaction(async (c) => { await createPgCatalogRowWriter().insertResource(c, ft) })
    else createCatalogRowWriter(o.db).insertResource(ft)
  })
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx/datastores/b`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'datastore not empty')
  t.same(await storeNames(app, 'vx'), ['b'])
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx/datastores/b?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.same(await storeNames(app, 'vx'), [])
  t.same(await appRows(app, 'SELECT name FROM resources WHERE workspace = $1', ['vx']), [])
  t.equal((await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx/datastores/b`, headers: ADMIN })).statusCode, 404)

  // The workspace of a store is not deleted without recurse; with it, the store goes too.
  t.equal((await postXml(app, 'vx', storeXml('c', db))).statusCode, 201)
  t.equal((await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx`, headers: ADMIN })).statusCode, 403)
  t.same(await storeNames(app, 'vx'), ['c'])
  t.equal((await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx?recurse=true`, headers: ADMIN })).statusCode, 200)
  t.same(await appRows(app, 'SELECT name FROM stores WHERE workspace = $1', ['vx']), [])

  // GeoServer's 405s.
  for (const [method, url] of [['PUT', '/workspaces/vx/datastores'], ['DELETE', '/workspaces/vx/datastores.xml'], ['POST', '/workspaces/vx/datastores/c']] as const) {
    const r = await app.inject({ method, url: `${REST}${url}`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<dataStore/>' })
    t.equal(r.statusCode, 405, `${method} ${url}`)
    t.equal(r.body, `Request method ${method} not supported`)
  }
})

t.test('the sealed password survives a restart with the same master key and is usable by the connection check', async (t) => {
  const db = await postgisDb(t)
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true })
  await createWorkspace(app, 'vx')
  t.equal((await postXml(app, 'vx', storeXml('nyc', db))).statusCode, 201)
  const token = (await params(app, 'vx', 'nyc')).passwd
  const keyFile = path.join(dataDir, 'security', 'master.key')
  t.equal(fs.statSync(keyFile).mode & 0o777, 0o600)
  await app.close()
  const again = await build(t, { dataDir })
  t.equal((await params(again, 'vx', 'nyc')).passwd, token)
  // Enabling checks the connection with the opened password: it still answers.
  t.equal((await putXml(again, 'vx', 'nyc', '<dataStore><enabled>true</enabled></dataStore>')).statusCode, 200)
})
