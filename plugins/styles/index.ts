// The styles area under {base}/rest: the SLD catalog (global and per workspace) and the layer
// routes that assign styles. State lives in app.styles (plugins/infra/services.ts).
import type { FastifyInstance } from 'fastify'
import styleRoutes from './styles.js'
import layerRoutes from './layers.js'

export default async function styles (app: FastifyInstance) {
  await app.register(styleRoutes)
  await app.register(layerRoutes)
}
