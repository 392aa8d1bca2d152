// {base}/rest/styles, workspace styles and layers' style settings.
import { Type } from '@fastify/type-provider-typebox'
import { namedList, representation } from './common.js'

/** Every style route: the workspace when the path has one, the style name on item paths. */
export const StyleParams = Type.Object({ ws: Type.Optional(Type.String()), name: Type.Optional(Type.String()) })
export const StyleQuery = Type.Object({
  name: Type.Optional(Type.String()),
  purge: Type.Optional(Type.String()),
  recurse: Type.Optional(Type.String()),
  quietOnNotFound: Type.Optional(Type.String())
})
export const LayerParams = Type.Object({ ws: Type.Optional(Type.String()), layer: Type.String() })
export const WsParams = Type.Object({ ws: Type.String() })

export const Style = Type.Object({
  style: Type.Object({
    name: Type.String(),
    workspace: Type.Optional(Type.Object({ name: Type.String() })),
    format: Type.String(),
    languageVersion: Type.Object({ version: Type.String() }),
    filename: Type.String()
  })
})

export const responses = {
  list: { 200: representation('The styles', namedList('styles', 'style')) },
  one: {
    200: {
      description: 'The catalog entry (XML or JSON), the SLD (.sld) or the package (.zip)',
      content: {
        'application/json': { schema: Style },
        'application/xml': { schema: Style },
        'application/vnd.ogc.sld+xml': { schema: Type.String() },
        'application/zip': { schema: Type.String({ format: 'binary' }) }
      }
    }
  },
  layers: { 200: representation('The layers', namedList('layers', 'layer')) },
  layer: { 200: representation('The layer: default style and styles', Type.Object({ layer: Type.Object({ name: Type.String() }, { additionalProperties: true }) })) }
}
