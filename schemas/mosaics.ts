// Image mosaics: coverage stores, coverages and granule indexes under {base}/rest/workspaces/<ws>.
// Query parameters are read loosely (the last of repeated values wins, unknown ones are refused
// by name where GeoServer drops them unread), so they are described, not constrained.
import { Type, type TSchema } from '@fastify/type-provider-typebox'
import { BooleanText, CreatedName, field, fields, looseQuery, namedList, OneOf, representation, rootBody } from './common.js'
import { MAX_TEXT, PRESENTATIONS, PROJECTION_POLICIES, STRATEGIES } from '../services/mosaics/coverage-fields.js'

export const WsParams = Type.Object({ ws: Type.String() })
export const StoreParams = Type.Object({ ws: Type.String(), store: Type.String() })
export const UploadParams = Type.Object({ ws: Type.String(), store: Type.String(), upload: Type.String() })
export const CoverageParams = Type.Object({ ws: Type.String(), store: Type.String(), c: Type.String() })
export const WsCoverageParams = Type.Object({ ws: Type.String(), c: Type.String() })
export const GranuleParams = Type.Object({ ws: Type.String(), store: Type.String(), c: Type.String(), fid: Type.String() })

export const UploadQuery = looseQuery('configure', 'coverageName', 'verify', 'filename')
export const HarvestQuery = looseQuery('verify')
export const StoreDeleteQuery = looseQuery('recurse', 'purge')
export const GranulesQuery = looseQuery('filter', 'offset', 'limit', 'purge')
export const GranuleDeleteQuery = looseQuery('purge')

const Granules = {
  description: 'Granules: GeoJSON (.json) or a GML 2 feature collection (.xml)',
  content: {
    'application/json': { schema: Type.Object({ type: Type.Literal('FeatureCollection'), features: Type.Array(Type.Object({}, { additionalProperties: true })) }, { additionalProperties: true }) },
    'application/xml': { schema: Type.String() }
  }
}

/** POST coveragestores: a store reading a file (GeoTIFF) or folder (ImageMosaic) under the harvest roots. */
export const CoverageStoreBody = rootBody(['coverageStore'], fields({
  name: field('The store name (required)', Type.String({ minLength: 1 })),
  type: field('GeoTIFF, WorldImage or ImageMosaic', OneOf(['GeoTIFF', 'WorldImage', 'ImageMosaic'])),
  url: field('file: URL or absolute path of the file (GeoTIFF) or folder (ImageMosaic), under MAPWARDEN_HARVEST_ROOTS', Type.String({ minLength: 1 })),
  enabled: field('true (a coverage store is always enabled)', BooleanText),
  workspace: field('The workspace of the URL, by name or as { name }', Type.Union([Type.String(), Type.Object({ name: Type.String() })]))
}, 'Other fields are refused by name; __default and the coverages link are accepted and ignored'))

export const responses = {
  created: { 201: CreatedName },
  stores: { 200: representation('The coverage stores of the workspace', namedList('coverageStores', 'coverageStore')) },
  store: { 200: representation('The coverage store', Type.Object({ coverageStore: Type.Object({ name: Type.String(), type: Type.String(), enabled: Type.Boolean() }, { additionalProperties: true }) })) },
  coverages: { 200: representation('The coverages', namedList('coverages', 'coverage')) },
  coverage: { 200: representation('The coverage', Type.Object({ coverage: Type.Object({ name: Type.String(), nativeName: Type.String() }, { additionalProperties: true }) })) },
  schema: { 200: representation('The granule index schema', Type.Object({ Schema: Type.Object({ attributes: Type.Unknown(), href: Type.String() }) })) },
  granules: { 200: Granules }
}

// Field values as the coverage service reads them: text also as a JSON number or boolean (its text),
// booleans also as text (XML), a repeated element as one value or a list.
const Text = Type.Union([Type.String({ maxLength: MAX_TEXT }), Type.Number(), Type.Boolean()])
const Bool = Type.Union([Type.Boolean(), OneOf(['true', 'false'])])
const oneOrMore = <T extends TSchema>(item: T) => Type.Union([item, Type.Array(item)])
const DimensionInfo = Type.Object({
  enabled: Type.Optional(Bool),
  presentation: Type.Optional(OneOf(PRESENTATIONS)),
  resolution: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.String()], { description: 'A positive number; "" to clear' })),
  units: Type.Optional(Text),
  unitSymbol: Type.Optional(Text),
  defaultValue: Type.Optional(Type.Union([Type.Literal(''), Type.Object({ strategy: OneOf(STRATEGIES), referenceValue: Type.Optional(Text) })])),
  nearestMatchEnabled: Type.Optional(Bool),
  acceptableInterval: Type.Optional(Text),
  attribute: Type.Optional(Type.String({ description: 'Read-only: sent back unchanged' })),
  rawNearestMatchEnabled: Type.Optional(Type.Union([Type.Literal(false), Type.Literal('false')], { description: 'WCS only: off' }))
})
const MetadataEntry = Type.Object({
  '@key': Type.String({ minLength: 1, maxLength: 256, description: 'time, elevation, or a custom key (a text value)' }),
  dimensionInfo: Type.Optional(DimensionInfo),
  $: Type.Optional(Text)
})
const CoverageDimension = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })), description: Type.Optional(Text) })

/**
 * POST (configure) and PUT (partial change) of a coverage: `{ coverage: {...} }`. The fields a GET
 * shows may be sent back unchanged (GET-modify-PUT); a changed read-only one is refused by name.
 */
export const CoverageBody = rootBody(['coverage'], fields({
  name: field('POST: the coverage name (else nativeCoverageName or nativeName)', Type.String()),
  nativeName: field('The coverage of the mosaic index it serves (read-only on PUT)', Type.String()),
  nativeCoverageName: field('As nativeName', Type.String()),
  title: field('Title (blank: the name)', Text),
  abstract: field('Abstract ("" clears it)', Text),
  keywords: field('Keywords ("" for none)', Type.Union([Type.Literal(''), Type.Object({ string: oneOrMore(Text) })])),
  projectionPolicy: field('How the declared CRS is used', OneOf([...PROJECTION_POLICIES])),
  enabled: field('Whether the coverage is served', Bool),
  metadata: field('Entries merged into the metadata; time and elevation hold a dimensionInfo', Type.Union([Type.Literal(''), Type.Object({ entry: oneOrMore(MetadataEntry) })])),
  dimensions: field('Band names and descriptions: one coverageDimension per band, in band order', Type.Object({ coverageDimension: oneOrMore(CoverageDimension) }))
}, 'Other fields of the GET representation may be sent back unchanged'))
