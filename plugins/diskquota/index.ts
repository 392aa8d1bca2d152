// GeoWebCache's disk quota resource (DiskQuotaConfig in XML and JSON, root
// tilecacheQuotaConfiguration, GWC's gwcQuotaConfiguration accepted on PUT): GET/PUT diskquota(.xml|.json), POST/DELETE 405, plus diskquota/usage with what
// is used, per layer and tile set, against which quota. Mounted twice (tilecache and gwc): all
// state lives in app.diskQuota.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { bodyRoot, suffixed } from '../infra/routes.js'
import { toXml, type Document } from '../infra/representation.js'
import { MethodNotAllowed } from '../../services/errors.js'
import { configDocument, configJson, type QuotaConfig } from '../../services/diskquota/quota-config.js'
import { usageDocument } from './usage.js'
import { QuotaConfigBody, responses } from '../../schemas/diskquota.js'
import type { RootFields } from '../../schemas/common.js'

const ROOTS = ['tilecacheQuotaConfiguration', 'gwcQuotaConfiguration', 'org.geowebcache.diskquota.DiskQuotaConfig']

/** GWC picks JSON only when asked for it; anything else is XML. */
function sendConfig (req: FastifyRequest, reply: FastifyReply, c: QuotaConfig) {
  if (req.format === 'json') return reply.type('application/json').send(configJson(c))
  return reply.type('application/xml').send(toXml(configDocument(c) as Document))
}

// Refused in onRequest, before any body is read.
const notAllowed = { onRequest: async (req: FastifyRequest) => { throw MethodNotAllowed(req.method) }, schema: { summary: 'Not allowed: answers 405 (as GeoWebCache)' } }
const never = async () => {}

export default async function diskquota (app: FastifyInstance) {
  const dq = app.diskQuota
  for (const url of suffixed('/diskquota')) {
    app.get(url, { schema: { summary: 'Disk-quota configuration', response: responses.config } }, async (req, reply) => sendConfig(req, reply, dq.config))
    app.put(url, { schema: { summary: 'Change the disk-quota configuration (partial; answers the whole result)', body: QuotaConfigBody, response: responses.config } }, async (req, reply) => sendConfig(req, reply, await dq.update(bodyRoot<RootFields<typeof QuotaConfigBody>>(req.body, ...ROOTS))))
    app.post(url, notAllowed, never)
    app.delete(url, notAllowed, never)
  }
  for (const url of suffixed('/diskquota/usage')) {
    app.get(url, { schema: { summary: 'Disk usage of the tile cache, globally and per layer', response: responses.usage } }, async (req, reply) => reply.resource(usageDocument(await dq.usage())))
    app.put(url, notAllowed, never)
    app.post(url, notAllowed, never)
    app.delete(url, notAllowed, never)
  }
}
