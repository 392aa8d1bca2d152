// U+0000 in request text (issue 31, 2): PostgreSQL cannot hold it in text or jsonb ("\u0000 cannot
// be converted to text", a 500) while SQLite keeps it, so the two backends answered differently.
// It is refused where the request is read, before any service or database sees it: the path, each
// query parameter, every field of a JSON or XML body, SLD and form bodies (a plain-text harvest
// location where it is read, as a ZIP mislabelled text/plain is a 415 first), a 400 naming
// the parameter or field, on both backends, with the data directory, the catalog answers and every
// database table unchanged. WMS answers it as any bad parameter (a ServiceExceptionReport).
import t from 'tap'
import { createHash } from 'node:crypto'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { build, ADMIN, BASE } from '../helper.js'
import { createMosaic, pattern, rgbTiff } from '../fixtures/seed/mosaic.js'
import { select, withAppDb } from '../fixtures/catalog-rows.js'
import { assertRefused, snapshot, type Snapshot } from './assert-b.js'

const REST = `${BASE}/rest`
const COV = `${REST}/workspaces/topp/coveragestores/world/coverages/world`
const G = `${COV}/index/granules`
const S = `${REST}/security`
const GETS = [`${REST}/workspaces.json`, `${REST}/styles.json`, `${COV}.json`, `${REST}/layers/topp:world.json`, `${G}.json`,
  `${S}/usergroup/users.json`, `${S}/roles.json`, `${S}/acl/layers.json`, `${S}/acl/catalog.json`, `${BASE}/gwc/rest/diskquota.json`,
  `${BASE}/gwc/rest/seed/topp:world.json`, `${REST}/workspaces/topp/datastores.json`]
const N = '\u0000'
const XML = { ...ADMIN, 'content-type': 'application/xml' }
const JSON_ = { ...ADMIN, 'content-type': 'application/json' }
const SLD = { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }
const FORM = { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }
const sld = (title: string) => '<?xml version="1.0"?><StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld"><NamedLayer><Name>x</Name>' +
  `<UserStyle><Title>${title}</Title><FeatureTypeStyle><Rule><RasterSymbolizer><Opacity>1</Opacity></RasterSymbolizer></Rule></FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>`
const q = (s: string) => encodeURIComponent(s)
const getMap = (extra: string) => `${BASE}/wms?SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=topp:world&STYLES=&SRS=EPSG:4326&BBOX=0,0,8,8&WIDTH=8&HEIGHT=8&FORMAT=image/png&W3CSTATUS=true&${extra}`
const seedXml = (styles: string) => `<seedRequest><name>topp:world</name><type>seed</type><gridSetId>EPSG:4326</gridSetId><zoomStart>0</zoomStart><zoomStop>1</zoomStop><format>image/png</format><threadCount>1</threadCount><parameters><entry><string>STYLES</string><string>${styles}</string></entry></parameters></seedRequest>`

/**
 * Every table of the app's database, whichever backend, hashed (the refusal changes no row);
 * cluster_nodes aside, the PostgreSQL node's heartbeat, which moves on its own.
 */
async function tables (app: FastifyInstance): Promise<Record<string, string>> {
  // One connection for every table (on PostgreSQL each appRows call opens its own: two snapshots of
  // some 60 tables for each of a hundred cases took the file past tap's 180 s on a loaded machine).
  return await withAppDb(app, async (o) => {
    const names = o.backend === 'pg'
      ? await select(o, "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'cluster_nodes' ORDER BY 1")
      : await select(o, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_rtree_%' ORDER BY 1")
    const out: Record<string, string> = {}
    for (const { name } of names as Array<{ name: string }>) {
      const rows = (await select(o, `SELECT * FROM "${name}"`)).map((r) => JSON.stringify(r, (_k, v) => typeof v === 'bigint' ? String(v) : v)).sort()
      out[name] = createHash('sha256').update(rows.join('\n')).digest('hex')
    }
    return out
  })
}

async function setup (t: any): Promise<FastifyInstance> {
  const app = await build(t)
  await createMosaic(app, 'topp', 'world', { 'g0.tif': rgbTiff(8, 8, [0, 0, 8, 8], pattern) })
  const style = await app.inject({ method: 'POST', url: `${REST}/styles?name=raster2`, headers: SLD, payload: sld('plain') })
  t.equal(style.statusCode, 201, 'a style to edit')
  const user = await app.inject({ method: 'POST', url: `${S}/usergroup/users.json`, headers: JSON_, payload: '{"user":{"userName":"alice","password":"alice-secret-pw"}}' })
  t.equal(user.statusCode, 201, 'a user to edit')
  return app
}

interface Case { label: string, req: InjectOptions, message: string | RegExp }
const nulParam = (name: string) => `Query parameter ${name} holds a NUL character (U+0000), which no name or text can hold`
const nulField = (field: string) => `Field ${field} holds a character that XML cannot carry (a control character or a lone surrogate)`
const NUL_PATH = 'Malformed URL: the path holds a NUL character (U+0000), which no name or text can hold'

const CASES: Case[] = [
  // The two requests: an ECQL string literal holding %00.
  { label: 'granule filter', req: { url: `${G}.json?filter=${q("location='g0")}%00${q(".tif'")}` }, message: nulParam('filter') },
  { label: 'granule delete filter', req: { method: 'DELETE', url: `${G}.xml?filter=${q("location='g0")}%00${q(".tif'")}` }, message: nulParam('filter') },
  { label: 'granule list limit', req: { url: `${G}.json?limit=1%00` }, message: nulParam('limit') },
  { label: 'query parameter name', req: { url: `${G}.json?fil%00ter=INCLUDE` }, message: 'A query parameter name ("fil\\u0000ter") holds a NUL character (U+0000), which no name or text can hold' },
  // Names in the path and in the query.
  { label: 'workspace in the path', req: { url: `${REST}/workspaces/top%00p.json` }, message: NUL_PATH },
  { label: 'style PUT in the path', req: { method: 'PUT', url: `${REST}/styles/raster2%00`, headers: SLD, payload: sld('x') }, message: NUL_PATH },
  { label: 'layer in the path', req: { method: 'PUT', url: `${REST}/layers/topp:wor%00ld.json`, headers: JSON_, payload: '{"layer":{"enabled":true}}' }, message: NUL_PATH },
  { label: 'role in the path', req: { method: 'POST', url: `${S}/roles/role/ROLE_%00X` }, message: NUL_PATH },
  { label: 'user of a role in the path', req: { method: 'POST', url: `${S}/roles/role/ADMIN/user/ali%00ce` }, message: NUL_PATH },
  { label: 'layer rule in the path', req: { method: 'DELETE', url: `${S}/acl/layers/topp.%00.r` }, message: NUL_PATH },
  { label: 'seed layer in the path', req: { method: 'POST', url: `${BASE}/gwc/rest/seed/topp:world%00.xml`, headers: XML, payload: seedXml('') }, message: NUL_PATH },
  { label: 'new style name', req: { method: 'POST', url: `${REST}/styles?name=a%00b`, headers: SLD, payload: sld('x') }, message: nulParam('name') },
  { label: 'workspace delete recurse', req: { method: 'DELETE', url: `${REST}/workspaces/topp?recurse=true%00` }, message: nulParam('recurse') },
  { label: 'store delete purge', req: { method: 'DELETE', url: `${REST}/workspaces/topp/coveragestores/world?recurse=true&purge=all%00` }, message: nulParam('purge') },
  { label: 'app-schema file name', req: { method: 'PUT', url: `${REST}/workspaces/topp/datastores/st/file.appschema?filename=m%00.xml`, headers: XML, payload: '<as:AppSchemaDataAccess xmlns:as="http://www.geotools.org/app-schema"/>' }, message: nulParam('filename') },
  // Tiles: WMTS KVP and REST, TMS.
  { label: 'WMTS layer', req: { url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=topp:world%00&STYLE=&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:0&TILEROW=0&TILECOL=0&FORMAT=image/png` }, message: nulParam('LAYER') },
  { label: 'WMTS REST layer', req: { url: `${BASE}/gwc/service/wmts/rest/topp:world%00/raster/EPSG:4326/EPSG:4326:0/0/0?format=image/png` }, message: NUL_PATH },
  { label: 'TMS layer', req: { url: `${BASE}/gwc/service/tms/1.0.0/topp:world%00@EPSG:4326@png/0/0/0.png` }, message: NUL_PATH },
  // JSON bodies: names, titles, abstracts, keywords, passwords, rule values, seed parameters.
  { label: 'JSON workspace name', req: { method: 'POST', url: `${REST}/workspaces`, headers: JSON_, payload: JSON.stringify({ workspace: { name: `a${N}b` } }) }, message: nulField('workspace.name') },
  { label: 'JSON coverage abstract', req: { method: 'PUT', url: `${COV}.json`, headers: JSON_, payload: JSON.stringify({ coverage: { abstract: `a${N}` } }) }, message: nulField('coverage.abstract') },
  { label: 'JSON coverage keyword', req: { method: 'PUT', url: `${COV}.json`, headers: JSON_, payload: JSON.stringify({ coverage: { keywords: { string: ['ok', `k${N}`] } } }) }, message: nulField('coverage.keywords.string[1]') },
  { label: 'JSON user password', req: { method: 'POST', url: `${S}/usergroup/users.json`, headers: JSON_, payload: JSON.stringify({ user: { userName: 'bob', password: `bob-secret${N}pw` } }) }, message: nulField('user.password') },
  { label: 'JSON layer rule', req: { method: 'POST', url: `${S}/acl/layers.json`, headers: JSON_, payload: JSON.stringify({ 'topp.*.r': `ROLE${N}` }) }, message: nulField('topp.*.r') },
  { label: 'JSON seed parameter', req: { method: 'POST', url: `${BASE}/gwc/rest/seed/topp:world.json`, headers: JSON_, payload: JSON.stringify({ seedRequest: { name: 'topp:world', type: 'seed', gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 1, format: 'image/png', threadCount: 1, parameters: { entry: [{ string: ['STYLES', `r${N}`] }] } } }) }, message: nulField('seedRequest.parameters.entry[0].string[1]') },
  // XML bodies: the raw character, in element text, in an attribute and in a comment.
  { label: 'XML workspace name', req: { method: 'POST', url: `${REST}/workspaces`, headers: XML, payload: `<workspace><name>a${N}b</name></workspace>` }, message: nulField('workspace.name') },
  { label: 'XML coverage title', req: { method: 'PUT', url: `${COV}.xml`, headers: XML, payload: `<coverage><title>t${N}</title></coverage>` }, message: nulField('coverage.title') },
  { label: 'XML coverage keyword', req: { method: 'PUT', url: `${COV}.xml`, headers: XML, payload: `<coverage><keywords><string>k${N}</string></keywords></coverage>` }, message: nulField('coverage.keywords.string') },
  { label: 'XML layer default style', req: { method: 'PUT', url: `${REST}/layers/topp:world.xml`, headers: XML, payload: `<layer><defaultStyle><name>raster2${N}</name></defaultStyle></layer>` }, message: nulField('layer.defaultStyle.name') },
  { label: 'XML style entry', req: { method: 'POST', url: `${REST}/styles`, headers: XML, payload: `<style><name>s${N}</name><filename>s.sld</filename></style>` }, message: nulField('style.name') },
  { label: 'XML user', req: { method: 'POST', url: `${S}/usergroup/users`, headers: XML, payload: `<user><userName>bo${N}b</userName><password>bob-secret-pw</password></user>` }, message: nulField('user.userName') },
  { label: 'XML user password change', req: { method: 'PUT', url: `${S}/usergroup/user/alice`, headers: XML, payload: `<user><password>alice-new${N}pw</password></user>` }, message: nulField('user.password') },
  { label: 'XML layer rule attribute', req: { method: 'POST', url: `${S}/acl/layers.xml`, headers: XML, payload: `<rules><rule resource="topp.${N}.r">ROLE_X</rule></rules>` }, message: nulField('rules.rule.$.resource') },
  { label: 'XML catalog mode', req: { method: 'PUT', url: `${S}/acl/catalog.xml`, headers: XML, payload: `<catalog><mode>HIDE${N}</mode></catalog>` }, message: nulField('catalog.mode') },
  { label: 'XML seed parameter', req: { method: 'POST', url: `${BASE}/gwc/rest/seed/topp:world.xml`, headers: XML, payload: seedXml(`r${N}`) }, message: nulField('seedRequest.parameters.entry.string[1]') },
  { label: 'XML disk quota', req: { method: 'PUT', url: `${BASE}/gwc/rest/diskquota.xml`, headers: XML, payload: `<gwcQuotaConfiguration><enabled>true</enabled><globalExpirationPolicyName>LRU${N}</globalExpirationPolicyName></gwcQuotaConfiguration>` }, message: nulField('gwcQuotaConfiguration.globalExpirationPolicyName') },
  { label: 'XML app-schema mapping', req: { method: 'PUT', url: `${REST}/workspaces/topp/datastores/st/file.appschema`, headers: XML, payload: `<as:AppSchemaDataAccess xmlns:as="http://www.geotools.org/app-schema"><namespaces><Namespace><prefix>st${N}</prefix><uri>http://x</uri></Namespace></namespaces></as:AppSchemaDataAccess>` }, message: nulField('as:AppSchemaDataAccess.namespaces.Namespace.prefix') },
  { label: 'XML comment', req: { method: 'PUT', url: `${COV}.xml`, headers: XML, payload: `<coverage><!-- a${N} --><title>t</title></coverage>` }, message: /^The XML body \(line 1, column 17\) holds a NUL character \(U\+0000\)/ },
  // SLD, plain-text (refused where it is read) and form bodies.
  { label: 'SLD title on POST', req: { method: 'POST', url: `${REST}/styles?name=s3`, headers: SLD, payload: sld(`t${N}`) }, message: /^The SLD body \(line 1, column \d+\) holds a NUL character \(U\+0000\)/ },
  { label: 'SLD title on PUT', req: { method: 'PUT', url: `${REST}/styles/raster2`, headers: SLD, payload: sld(`t${N}`) }, message: /^The SLD body \(line 1, column \d+\) holds a NUL character/ },
  { label: 'harvest location', req: { method: 'POST', url: `${REST}/workspaces/topp/coveragestores/world/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: `/tmp/x${N}/g.tif` }, message: 'Cannot harvest the request body: it holds a NUL character' }, // refused where plain text is read
  { label: 'form kill_all', req: { method: 'POST', url: `${BASE}/gwc/rest/seed/topp:world`, headers: FORM, payload: 'kill_all=all%00' }, message: 'Form field kill_all holds a NUL character (U+0000), which no name or text can hold' }
]

t.test('[hostile nul] U+0000 in the path, a query parameter or a text body is 400 naming where, on either backend; nothing changes', async (t) => {
  const app = await setup(t)
  for (const c of CASES) {
    const before: Snapshot = await snapshot(app, GETS, ADMIN)
    const rows = await tables(app)
    const res = await app.inject({ method: 'GET', ...c.req, headers: { ...ADMIN, ...(c.req.headers ?? {}) } })
    await assertRefused(t, app, res, { status: 400, message: c.message }, before, c.label, GETS, ADMIN)
    t.same(await tables(app), rows, `${c.label}: no database row changed`)
  }
  // The same requests without the NUL are served (the refusal is the character, not the route).
  t.equal((await app.inject({ url: `${G}.json?filter=${q("location='g0.tif'")}`, headers: ADMIN })).statusCode, 200)
  t.equal((await app.inject({ method: 'PUT', url: `${COV}.xml`, headers: XML, payload: '<coverage><title>t</title></coverage>' })).statusCode, 200)
})

t.test('[hostile nul] WMS answers a NUL in any parameter as an InvalidParameterValue report, on either backend', async (t) => {
  const app = await setup(t)
  for (const [param, extra] of [
    ['CQL_FILTER', `CQL_FILTER=${q("location='g0")}%00${q(".tif'")}`], ['TIME', 'TIME=2024-01-01%00'], ['ELEVATION', 'ELEVATION=0%00'],
    ['STYLES', 'STYLES=raster%00'], ['SLD_BODY', `SLD_BODY=${q(sld('x'))}%00`], ['FORMAT_OPTIONS', 'FORMAT_OPTIONS=dpi:90%00']
  ]) {
    const before = await snapshot(app, GETS, ADMIN)
    const res = await app.inject({ url: getMap(extra) })
    t.equal(res.statusCode, 400, `${param}: 400 (W3CSTATUS=true)`)
    t.match(res.body, '<ServiceExceptionReport', `${param}: an exception report`)
    t.match(res.body, `code="InvalidParameterValue"`, `${param}: InvalidParameterValue`)
    t.match(res.body, nulParam(param), `${param}: the parameter named`)
    t.same(await snapshot(app, GETS, ADMIN), before, `${param}: nothing changed`)
    const form = await app.inject({ method: 'POST', url: `${BASE}/wms`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: getMap(extra).split('?')[1] })
    t.equal(form.statusCode, 400, `${param} in a POSTed form: 400`)
    t.match(form.body, `Form field ${param} holds a NUL character`, `${param} in a form: the field named`)
  }
  const ok = await app.inject({ url: getMap(`CQL_FILTER=${q("location='g0.tif'")}`) })
  t.equal(ok.statusCode, 200, 'the same GetMap without the NUL draws')
  t.equal(ok.headers['content-type'], 'image/png')
})
