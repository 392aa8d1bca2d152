// {base}/rest/about: version (GeoServer's shape, one resource per component; clients read the
// "GeoServer" entry to pick API behaviour, so it states the GeoServer REST level mapwarden speaks),
// manifest (the npm packages installed, with GeoServer's manifest/from/to/key/value filters) and
// status (GeoServer's ModuleStatus list, one per component of mapwarden; status/<module> one of them).
import type { FastifyInstance } from 'fastify'
import { createRequire } from 'node:module'
import { refuseMethods, suffixed } from '../infra/routes.js'
import { ManifestQuery, StatusParams, responses } from '../../schemas/catalog.js'
import type { ManifestFilter, ModuleStatus } from '../../services/catalog/about.js'
import { NoSuchModule } from '../../services/errors.js'

const pkg = createRequire(import.meta.url)('../../../package.json') as { version: string }
export const GEOSERVER_API_VERSION = '2.26.0'

const statusDoc = (s: ModuleStatus) => ({
  module: s.module, name: s.name, component: s.component, version: s.version, isEnabled: s.isEnabled, isAvailable: s.isAvailable, message: s.message
})

export default async function about (app: FastifyInstance) {
  for (const url of suffixed('/about/version')) app.get(url, { schema: { summary: 'Version of the GeoServer API served and of mapwarden', response: responses.about }, config: { access: 'authenticated' } }, async (_req, reply) => reply.resource({
    about: {
      resource: [
        { '@name': 'GeoServer', Version: GEOSERVER_API_VERSION, 'Git-Revision': 'mapwarden', 'Build-Timestamp': 'n/a' },
        { '@name': 'mapwarden', Version: pkg.version, 'Git-Revision': 'n/a', 'Build-Timestamp': 'n/a' }
      ]
    }
  }))

  for (const url of suffixed('/about/manifest')) {
    app.get<{ Querystring: ManifestFilter }>(url, { schema: { summary: 'The packages installed (GeoServer: the manifests of the jars), filtered', querystring: ManifestQuery, response: responses.manifest } }, async (req, reply) => {
      const resources = await app.about.manifest(req.query)
      return reply.resource({ about: { resource: resources.map((r) => ({ '@name': r.name, ...r.entries })) } })
    })
  }
  for (const url of suffixed('/about/status')) {
    app.get(url, { schema: { summary: 'The state of each component of mapwarden (GeoServer\'s module status)', response: responses.statuses } }, async (_req, reply) =>
      reply.resource({ statuss: { status: (await app.about.status()).map(statusDoc) } }))
  }
  app.get<{ Params: { module: string } }>('/about/status/:module', { schema: { summary: 'The state of one component, by module name (.xml or .json)', params: StatusParams, response: responses.status } }, async (req, reply) => {
    const name = req.params.module.replace(/\.(xml|json)$/, '')
    const one = (await app.about.status()).find((s) => s.module === name)
    if (!one) throw NoSuchModule(name)
    return reply.resource({ status: statusDoc(one) })
  })
  refuseMethods(app, [...suffixed('/about/manifest'), ...suffixed('/about/status'), ...suffixed('/about/version')], ['POST', 'PUT', 'DELETE'])
}
