// The styles area under {base}/rest: the SLD catalog (global and per workspace) and the layer
// routes that assign styles, and layer groups (layergroups.ts). State lives in app.styles (plugins/infra/services.ts).
import type { FastifyInstance } from 'fastify'
import styleRoutes from './styles.js'
import layerRoutes from './layers.js'
import layerGroupRoutes from './layergroups.js'

export default async function styles (app: FastifyInstance) {
  await app.register(styleRoutes)
  await app.register(layerRoutes)
  await app.register(layerGroupRoutes)
}
