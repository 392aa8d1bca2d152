// {base}/rest/styles, workspace styles and layers' style settings.
import { Type } from '@fastify/type-provider-typebox'
import { Binary, describedRootBody, field, fields, jsonOrXml, namedList, OneOf, representation } from './common.js'

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
        'application/zip': { schema: Binary }
      }
    },
    404: { description: 'No such style (with quietOnNotFound=true: an empty body)', content: { 'text/plain': { schema: Type.String() } } }
  },
  layers: { 200: representation('The layers', namedList('layers', 'layer')) },
  layer: { 200: representation('The layer: default style and styles', Type.Object({ layer: Type.Object({ name: Type.String() }, { additionalProperties: true }) })) }
}

/** A style reference in a layer: its name ('name' or 'ws:name'), or `{ name, workspace }`. */
const StyleRefShape = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({ name: Type.String({ minLength: 1 }), workspace: Type.Optional(Type.Union([Type.String(), Type.Object({ name: Type.String() })])) })
])

/**
 * POST (create) and PUT (change) of a catalog entry, JSON or XML; an XML body whose root is an SLD
 * (StyledLayerDescriptor) is the style itself (application/vnd.ogc.sld+xml, ZIP: no schema). The
 * style name in the path is checked first, so the body is described and refused by the service.
 */
export const StyleEntryBody = jsonOrXml(Type.Union([
  describedRootBody(['style'], fields({
    name: field('The style name', Type.String({ minLength: 1 })),
    workspace: field('POST: the path\'s workspace; PUT: moves the style ("" or no name: global)', Type.Union([Type.String(), Type.Object({ name: Type.Optional(Type.String()) })])),
    format: field('POST: only sld; PUT: read-only (sent back unchanged)', Type.String()),
    languageVersion: field('Read-only: follows the SLD content (sent back unchanged)', Type.Object({ version: OneOf(['1.0.0', '1.1.0']) })),
    filename: field('The SLD file name ("" keeps or derives it)', Type.String({ pattern: '(^$|\\.[sS][lL][dD]$)' }))
  })),
  Type.Unsafe({ description: 'An SLD document (root StyledLayerDescriptor), XML only' })
]))

/** PUT of a layer's styles; the layer is found first, then the body is checked with GeoServer's messages. */
export const LayerBody = describedRootBody(['layer'], fields({
  defaultStyle: field('The default style ("" for none)', Type.Union([Type.Literal(''), StyleRefShape])),
  styles: field('The other styles, in order ("" for none)', Type.Union([Type.Literal(''), Type.Object({ style: Type.Union([StyleRefShape, Type.Array(StyleRefShape)]) }), Type.Array(StyleRefShape)])),
  enabled: field('Raster layers: whether the layer is served', Type.Union([Type.Boolean(), OneOf(['true', 'false'])])),
  attribution: field('Who provides the layer (GeoServer\'s AttributionInfo; WMS capabilities show it): title, href, logoURL, logoWidth, logoHeight, logoType; "" or {} removes it',
    Type.Union([Type.Literal(''), Type.Null(), Type.Object({
      title: Type.Optional(Type.String()),
      href: Type.Optional(Type.String({ description: 'An http(s) URL' })),
      logoURL: Type.Optional(Type.String({ description: 'An http(s) URL' })),
      logoWidth: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String()])),
      logoHeight: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String()])),
      logoType: Type.Optional(Type.String({ description: 'The logo\'s media type, image/png' }))
    })]))
}, 'Also the tile-cache settings of the layer; the read-only fields of a GET may be sent back unchanged'))
