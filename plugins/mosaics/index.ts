// The mosaics area: {base}/rest/workspaces/<ws>/coveragestores/<store>/... (GeoServer's
// CoverageStoreFileController, CoverageController and StructuredCoverageController; wire details in
// geoserver-wire-formats.md section 6, statuses per DECISIONS.md).
import type { FastifyInstance } from 'fastify'
import stores from './stores.js'
import coverages from './coverages.js'
import granules from './granules.js'

export default async function mosaics (app: FastifyInstance) {
  // negotiate.ts gives a suffixed request without a Content-Type the suffix's media type so that
  // `curl -d @file x.xml` works; for a request without a body (DELETE .../granules.xml?filter=...)
  // that would make the XML parser fail on an empty body, so drop it again here.
  app.addHook('onRequest', async (req) => {
    const length = req.headers['content-length']
    if (req.formatFromSuffix && req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
      delete req.headers['content-type']
    }
  })
  await app.register(stores)
  await app.register(coverages)
  await app.register(granules)
}
