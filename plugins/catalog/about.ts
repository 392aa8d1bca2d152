// {base}/rest/about/version: GeoServer's shape, one resource per component. Clients read the
// "GeoServer" entry to pick API behaviour, so it states the GeoServer REST level mapwarden speaks.
import type { FastifyInstance } from 'fastify'
import { createRequire } from 'node:module'
import { suffixed } from '../infra/routes.js'
import { responses } from '../../schemas/catalog.js'

const pkg = createRequire(import.meta.url)('../../../package.json') as { version: string }
export const GEOSERVER_API_VERSION = '2.26.0'

export default async function about (app: FastifyInstance) {
  for (const url of suffixed('/about/version')) app.get(url, { schema: { summary: 'Version of the GeoServer API served and of mapwarden', response: responses.about }, config: { access: 'authenticated' } }, async (_req, reply) => reply.resource({
    about: {
      resource: [
        { '@name': 'GeoServer', Version: GEOSERVER_API_VERSION, 'Git-Revision': 'mapwarden', 'Build-Timestamp': 'n/a' },
        { '@name': 'mapwarden', Version: pkg.version, 'Git-Revision': 'n/a', 'Build-Timestamp': 'n/a' }
      ]
    }
  }))
}
