import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { refusalAt, validatedShape } from '../../../plugins/infra/body-validation.js'
import { WorkspaceBody } from '../../../schemas/catalog.js'

const JSON_ADMIN = { ...ADMIN, 'content-type': 'application/json' }

t.test('refusalAt finds the deepest x-refusal on a failing check\'s path', async (t) => {
  const schema = { 'x-refusal': 'outer', properties: { a: { 'x-refusal': 'inner', properties: { b: {} } }, 'c/d': {} } }
  t.equal(refusalAt(schema, '#'), 'outer')
  t.equal(refusalAt(schema, '#/properties/a/properties/b'), 'inner')
  t.equal(refusalAt(schema, '#/properties/c~1d'), 'outer')
  t.equal(refusalAt({}, '#'), undefined)
  t.equal(refusalAt(WorkspaceBody, '#'), 'Expected a workspace document in XML or JSON')
})

t.test('a body the schema refuses answers GeoServer\'s message: 400 text/plain', async (t) => {
  const app = await build(t)
  for (const payload of ['[1]', '"text"', 'null', '5']) {
    const res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_ADMIN, payload })
    t.equal(res.statusCode, 400, payload)
    t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
    t.equal(res.body, 'Expected a workspace document in XML or JSON', payload)
  }
  const res = await app.inject({ method: 'PUT', url: `${BASE}/tilecache/rest/diskquota.json`, headers: JSON_ADMIN, payload: '[]' })
  t.equal(res.body, 'Expected a tilecacheQuotaConfiguration document in XML or JSON')
})

t.test('a body reaches the service as sent: no coercion, no field dropped', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_ADMIN, payload: '{"workspace":{"name":123}}' })
  t.equal(res.body, 'Invalid workspace name: 123', 'a number stays a number')
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_ADMIN, payload: '{"workspace":{"name":"w","extra":1}}' })
  t.equal(res.body, 'Unknown field "extra" in workspace', 'an unknown field is refused by name, not removed')
})

t.test('XML maps to the JSON shape before validation: a security map in either form', async (t) => {
  const app = await build(t)
  const url = `${BASE}/rest/security/usergroup/users`
  let res = await app.inject({ method: 'POST', url, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: '<user><userName>ann</userName><password>ann-secret-pw-1</password><other/></user>' })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'Unknown field "other" in user')
  res = await app.inject({ method: 'POST', url, headers: JSON_ADMIN, payload: '{"userName":"ann","password":"ann-secret-pw-1","other":""}' })
  t.equal(res.body, 'Unknown field "other" in user')
  res = await app.inject({ method: 'POST', url, headers: JSON_ADMIN, payload: '[]' })
  t.equal(res.body, 'Expected a user document in XML or JSON')
})

t.test('the OpenAPI document carries the body and response schemas', async (t) => {
  const app = await build(t)
  const res = await app.inject({ url: `${BASE}/rest/openapi.json`, headers: ADMIN })
  const spec = res.json()
  const post = spec.paths[`${BASE}/rest/workspaces`].post
  const body = post.requestBody.content['application/json'].schema
  t.ok(body.properties.workspace.properties.name, 'the workspace body names its fields')
  t.equal(body['x-refusal'], 'Expected a workspace document in XML or JSON')
  t.ok(post.responses['201'], 'the 201 answer is documented')
  const seed = spec.paths[`${BASE}/gwc/rest/seed/{layer}`].post.requestBody.content
  t.ok(seed['application/xml'] && seed['application/json'], 'a seed request in XML or JSON')
  t.ok(spec.paths[`${BASE}/rest/workspaces/{ws}`].get.responses['200'].content['application/json'].schema.properties.workspace)
})

t.test('a typed field the service checks: any value passes validation, the service refuses in its words and order', async (t) => {
  const shape = validatedShape(WorkspaceBody) as { properties: { workspace: { properties: Record<string, unknown> } } }
  t.same(shape.properties.workspace.properties.isolated, { description: 'Isolated workspace: true or false ("" is false)' }, 'any value, described')
  t.ok((WorkspaceBody as any).properties.workspace.properties.isolated.anyOf, 'the route schema keeps the type')
  const app = await build(t)
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_ADMIN, payload: '{"workspace":{"name":"w","isolated":"maybe"}}' })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'workspace isolated must be true or false, got "maybe"')
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_ADMIN, payload: '{"workspace":{"isolated":5,"extra":1}}' })
  t.equal(res.body, 'Unknown field "extra" in workspace', 'unknown fields come first, as before')
  res = await app.inject({ method: 'PUT', url: `${BASE}/tilecache/rest/diskquota.json`, headers: JSON_ADMIN, payload: '{"tilecacheQuotaConfiguration":{"cacheCleanUpUnits":"WEEKS"}}' })
  t.equal(res.body, 'cacheCleanUpUnits shall be one of NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS: WEEKS')
})

t.test('the OpenAPI document shows the body fields\' types', async (t) => {
  const app = await build(t)
  const spec = (await app.inject({ url: `${BASE}/rest/openapi.json`, headers: ADMIN })).json()
  const ws = spec.paths[`${BASE}/rest/workspaces`].post.requestBody.content['application/json'].schema.properties.workspace.properties
  t.equal(ws.name.type, 'string')
  t.equal(ws.isolated['x-checked-by'], 'service')
  t.ok(ws.isolated.anyOf.some((s: { type?: string }) => s.type === 'boolean'), 'isolated: a boolean or its text')
  const dq = spec.paths[`${BASE}/tilecache/rest/diskquota`].put.requestBody.content['application/json'].schema.properties.tilecacheQuotaConfiguration.properties
  t.ok(JSON.stringify(dq.cacheCleanUpUnits).includes('HOURS'), 'the time units are listed')
  const seed = spec.paths[`${BASE}/gwc/rest/seed/{layer}`].post.requestBody.content['application/json'].schema.properties.seedRequest.properties
  t.ok(JSON.stringify(seed.type).includes('truncate'), 'the task types are listed')
})
