// The styles area under {base}/rest: the SLD catalog (global and per workspace) and the layer
// routes that assign styles. State lives in app.styles (plugins/infra/services.ts).
import type { FastifyInstance } from 'fastify'
import styleRoutes from './styles.js'
import layerRoutes from './layers.js'

export default async function styles (app: FastifyInstance) {
  // infra/negotiate gives a suffixed request (`DELETE /styles/foo.xml`) an XML or JSON media type
  // even when it has no body, which then fails to parse; a request without a body has no type.
  app.addHook('onRequest', async (req) => {
    const length = req.headers['content-length']
    if ((length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined) delete req.headers['content-type']
  })
  await app.register(styleRoutes)
  await app.register(layerRoutes)
}
