// Wire shape of a PostGIS data store (GeoServer's XStream alias dataStore): connection parameters
// as `<entry key="...">` (JSON `{"@key":..,"$":..}`), the password as the sealed token it is stored as.
import type { FastifyRequest } from 'fastify'
import { Link, type Document } from '../infra/representation.js'
import type { Urls } from '../infra/services.js'
import type { DataStoreRow } from '../../services/datastores/store.js'

export function postgisStoreDoc (req: FastifyRequest, urls: Urls, row: DataStoreRow): Document {
  const c = row.config
  return {
    dataStore: {
      name: row.name,
      description: row.description,
      type: row.type,
      enabled: row.enabled,
      workspace: { name: row.workspace, href: new Link(urls.rest(req, 'workspaces', row.workspace)) },
      connectionParameters: {
        entry: Object.entries(c.connectionParameters).map(([key, value]) => ({ '@key': key, $: value }))
      },
      // XStream writes `__default`; Jettison's JSON drops one underscore (spec 0.3).
      [req.format === 'json' ? '_default' : '__default']: false,
      disableOnConnFailure: c.disableOnConnFailure,
      featureTypes: new Link(urls.rest(req, 'workspaces', row.workspace, 'datastores', row.name, 'featuretypes'))
    }
  }
}
