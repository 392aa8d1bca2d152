// {base}/rest/fonts: GeoServer's FontListController, the font families text can be drawn with
// (services/render/fonts.ts: fontconfig's list). JSON is {"fonts":[...]}, XML <root><fonts><entry>.
import type { FastifyInstance } from 'fastify'
import { refuseMethods, suffixed } from '../infra/routes.js'
import { responses } from '../../schemas/catalog.js'

export default async function fonts (app: FastifyInstance) {
  for (const url of suffixed('/fonts')) {
    app.get(url, { schema: { summary: 'The font families the renderer can use', response: responses.fonts } }, async (req, reply) => {
      const families = await app.fonts.families()
      return reply.resource(req.format === 'json' ? { fonts: families } : { root: { fonts: { entry: families } } })
    })
  }
  refuseMethods(app, suffixed('/fonts'), ['POST', 'PUT', 'DELETE'])
}
