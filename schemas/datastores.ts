// Data stores under {base}/rest/workspaces/<ws>/datastores: the list, the store resource, and the
// body of POST and PUT of a PostGIS store (GeoServer's DataStoreInfo).
import { Type } from '@fastify/type-provider-typebox'
import { BooleanText, CreatedName, Empty, field, fields, rootBody } from './common.js'

export { WsParams, StoreParams, DeleteQuery, responses as storeResponses } from './appschema.js'

const Params = Type.Union([
  Type.Object({
    entry: Type.Array(Type.Object({ '@key': Type.String(), $: Type.Optional(Type.String()) }), { description: '<entry key="host">db.example.org</entry>; JSON {"@key":"host","$":"db.example.org"}' })
  }),
  Type.Record(Type.String(), Type.String(), { description: 'Child elements <host>db.example.org</host>; JSON {"host":"db.example.org"}' })
])

/** POST and PUT: `{ dataStore: {...} }`; links and read-only fields of a GET may be sent back. */
export const DataStoreBody = rootBody(['dataStore'], fields({
  name: field('The store name (POST: required; PUT: cannot change, 403)', Type.String({ minLength: 1 })),
  description: field('Free text', Type.String()),
  type: field('PostGIS (or give dbtype=postgis)', Type.String()),
  enabled: field('PUT: false disables the store (not connected); POST always creates it enabled, as GeoServer', BooleanText),
  workspace: field('The workspace of the URL (another one: 403)', Type.Object({ name: Type.String() })),
  connectionParameters: field('GeoServer\'s PostGIS keys: dbtype (postgis), host, port, database, schema, user, passwd (stored sealed with the master key, shown as a crypt2: token, kept on PUT unless sent), "Expose primary keys", "max connections", "min connections", "fetch size", "Connection timeout" (seconds; also bounds the connection check), "Loose bbox", "Estimated extends", "validate connections", "SSL mode", namespace...; other keys are kept and shown. PUT merges: a key sent empty is removed', Params),
  disableOnConnFailure: field('GeoServer\'s flag, kept and shown', BooleanText)
}, 'Other fields are refused by name; featureTypes (a link), dateCreated and __default are accepted and ignored'))

export const responses = {
  created: { 201: CreatedName },
  done: { 200: Empty }
}
