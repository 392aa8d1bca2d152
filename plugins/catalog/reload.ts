// {base}/rest/reload and {base}/rest/reset: GeoServer's CatalogReloadController. reload re-reads the
// catalog and everything kept in memory from the store, on every instance of a shared database;
// reset drops the in-memory caches. Both answer 200 with no body; only POST and PUT, as GeoServer.
import type { TypedApp } from '../infra/routes.js'
import { Empty } from '../../schemas/common.js'
import { refuseMethods } from '../infra/routes.js'

export default async function reload (app: TypedApp) {
  refuseMethods(app, ['/reload', '/reset'], ['GET', 'DELETE'])
  for (const method of ['POST', 'PUT'] as const) {
    app.route({
      method,
      url: '/reload',
      schema: { summary: 'Re-read the catalog and every in-memory copy from the store (every instance)', response: { 200: Empty } },
      handler: async (_req, reply) => { await app.catalog.reload(); return reply.code(200).send() }
    })
    app.route({
      method,
      url: '/reset',
      schema: { summary: 'Drop the in-memory caches (every instance)', response: { 200: Empty } },
      handler: async (_req, reply) => { await app.catalog.reset(); return reply.code(200).send() }
    })
  }
}
