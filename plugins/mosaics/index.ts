// The mosaics area: {base}/rest/workspaces/<ws>/coveragestores/<store>/... (GeoServer's
// CoverageStoreFileController, CoverageController and StructuredCoverageController, body for body).
import type { FastifyInstance } from 'fastify'
import stores from './stores.js'
import coverages from './coverages.js'
import granules from './granules.js'

export default async function mosaics (app: FastifyInstance) {
  await app.register(stores)
  await app.register(coverages)
  await app.register(granules)
}
