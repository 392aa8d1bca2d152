// GET {base}/metrics: what an operator's Prometheus scrapes from each instance (services/metrics.ts
// names the series). Administrators only by default, as the REST API; MAPWARDEN_METRICS=public
// lets an anonymous scraper on a private network read it, off leaves the route out (404).
import type { FastifyInstance } from 'fastify'
import type { MetricsAccess } from '../infra/config.js'
import { responses } from '../../schemas/metrics.js'

export default async function metrics (app: FastifyInstance, { access }: { access: Exclude<MetricsAccess, 'off'> }) {
  app.get('/metrics', { config: { access }, schema: { summary: 'Metrics of this instance for Prometheus: tile requests, renders, seed tasks, disk quota, database pools, Node.js process', response: responses.metrics } },
    async (_req, reply) => reply.type(app.metrics.contentType).header('cache-control', 'no-store').send(await app.metrics.render()))
}
