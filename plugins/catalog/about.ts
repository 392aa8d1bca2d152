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

/** The GeoTools and GeoWebCache releases that ship with a GeoServer release (2.28.0: 34.0 and 1.28.0). */
export function releaseTrain (geoserver: string): { geotools: string, geowebcache: string } {
  const [, minor, patch] = geoserver.split('.').map(Number)
  return { geotools: `${minor + 6}.${patch}`, geowebcache: `1.${minor}.${patch}` }
}

const statusDoc = (s: ModuleStatus) => ({
  module: s.module, name: s.name, component: s.component, version: s.version, isEnabled: s.isEnabled, isAvailable: s.isAvailable, message: s.message
})

export default async function about (app: FastifyInstance) {
  const geoserver = app.config.geoserverVersion
  const train = releaseTrain(geoserver)
  for (const url of suffixed('/about/version')) app.get(url, { schema: { summary: 'Version of the GeoServer API served (MAPWARDEN_GEOSERVER_VERSION), its GeoTools and GeoWebCache, and of mapwarden', response: responses.about }, config: { access: 'authenticated' } }, async (_req, reply) => reply.resource({
    about: {
      resource: [
        { '@name': 'GeoServer', 'Build-Timestamp': 'n/a', Version: geoserver, 'Git-Revision': 'mapwarden' },
        { '@name': 'GeoTools', 'Build-Timestamp': 'n/a', Version: train.geotools, 'Git-Revision': 'mapwarden' },
        { '@name': 'GeoWebCache', Version: train.geowebcache, 'Git-Revision': 'mapwarden' },
        { '@name': 'mapwarden', 'Build-Timestamp': 'n/a', Version: pkg.version, 'Git-Revision': 'n/a' }
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
  // GeoServer's MonitorRest (system-status module): produces {JSON, XML, HTML}; read at each request.
  for (const url of suffixed('/about/system-status')) {
    app.get(url, { schema: { summary: 'System metrics (GeoServer\'s system-status: OS, CPU, memory, swap, file system, network, this process), measured now', response: responses.systemStatus } }, async (_req, reply) =>
      reply.resource({ metrics: { metric: (await app.systemStatus.metrics()).map((m) => ({ ...m })) } }))
  }
  app.get<{ Params: { module: string } }>('/about/status/:module', { schema: { summary: 'The state of one component, by module name (.xml or .json)', params: StatusParams, response: responses.status } }, async (req, reply) => {
    const name = req.params.module.replace(/\.(xml|json)$/, '')
    const one = (await app.about.status()).find((s) => s.module === name)
    if (!one) throw NoSuchModule(name)
    return reply.resource({ status: statusDoc(one) })
  })
  refuseMethods(app, [...suffixed('/about/manifest'), ...suffixed('/about/status'), ...suffixed('/about/version'), ...suffixed('/about/system-status')], ['POST', 'PUT', 'DELETE'])
}
