// GeoWebCache's seed API under {base}/tilecache/rest and {base}/gwc/rest, and the export.
import { Type } from '@fastify/type-provider-typebox'
import { field, fields, jsonOrXml, looseQuery, OneOf, QueryValue, rootBody } from './common.js'
import { TILE_FORMATS } from '../services/tilecache/formats.js'

export const LayerParams = Type.Object({ layer: Type.String() })
export const TaskParams = Type.Object({ id: Type.String() })
export const FileParams = Type.Object({ file: Type.String() })
export const AreaQuery = Type.Object({ olderThan: Type.Optional(QueryValue) })
/** Checked by the export, with its own messages; parameter filters (any other name) pass through. */
export const ExportQuery = looseQuery('gridSetId', 'zoomStart', 'zoomStop', 'bounds', 'format')
// Values as the tile cache reads them: text trimmed, numbers also as text (XML sends text).
const Int = Type.Union([Type.Integer({ minimum: -999_999_999, maximum: 999_999_999 }), Type.String({ pattern: '^\\s*[+-]?[0-9]{1,9}\\s*$' })])
const Num = Type.Union([Type.Number(), Type.String()])
/** A parameter: `{ string: [name, value] }`. */
const Pair = Type.Object({ string: Type.Array(Type.String(), { minItems: 2, maxItems: 2 }) })
const Unsupported = field('GWC field: only absent or empty (a failed metatile is skipped and counted, never retried)', Type.Literal(''))
/** GWC's SeedRequest fields; each is checked by the tile cache, with GWC's messages and order. */
const SeedRequest = fields({
  name: field('The layer (must be the one in the path)', Type.String()),
  srs: field('The SRS of a grid set of the layer (when no gridSetId): { number: EPSG code }', Type.Union([Type.Object({ number: Int }), Int])),
  gridSetId: field('The grid set (default EPSG:4326)', Type.String()),
  bounds: field('Within the layer\'s extent, in the grid set\'s CRS ("" for the whole extent)',
    Type.Union([Type.Literal(''), Type.Object({ coords: Type.Object({ double: Type.Array(Num, { minItems: 4, maxItems: 4 }) }) })])),
  zoomStart: field('First zoom level (required)', Int),
  zoomStop: field('Last zoom level (required; not below zoomStart)', Int),
  format: field('A tile format (default image/png; truncate: all)', OneOf(TILE_FORMATS)),
  type: field('The task (required; any letter case)', OneOf(['seed', 'reseed', 'truncate'])),
  threadCount: field('Parallel tasks (default 1, at most the configured maximum)', Int),
  parameters: field('Parameter filter values: GWC\'s entries, or a plain { name: value } object', Type.Union([
    Type.Literal(''), Type.Object({ entry: Type.Union([Pair, Type.Array(Pair)]) }), Type.Record(Type.String(), Type.String())
  ])),
  filterUpdate: field('GWC field: only false', Type.Union([Type.Literal(false), OneOf(['false', ''])])),
  tileFailureRetryCount: Unsupported,
  tileFailureRetryWaitTime: Unsupported,
  totalFailuresBeforeAborting: Unsupported
})
/** POST seed/<layer>(.json|.xml) with a JSON or XML body: `{ seedRequest: {...} }`. */
export const SeedBody = jsonOrXml(rootBody(['seedRequest'], SeedRequest))
/**
 * `{ seedRequest, geometry, olderThan }`. Not refused as a whole here: the tile cache finds the
 * layer first (an unknown layer is its answer whatever the body), then words the refusal itself.
 */
export const AreaBody = fields({
  seedRequest: SeedRequest,
  geometry: field('A GeoJSON Polygon or MultiPolygon in the grid set\'s CRS', Type.Object({ type: OneOf(['Polygon', 'MultiPolygon']), coordinates: Type.Array(Type.Unknown()) })),
  olderThan: field('Reseed only tiles older than this ISO 8601 date-time (also a query parameter)', Type.String())
}, 'A JSON object { seedRequest, geometry, olderThan }')

/** GWC's `long[][]`: one [done, total, remaining, id, status] row per task. */
const TaskRows = Type.Object({ 'long-array-array': Type.Array(Type.Array(Type.Integer())) })

export const responses = {
  tasks: { 200: { description: 'Pending and running tasks as [done, total, remaining, id, status] rows', content: { 'application/json': { schema: TaskRows }, 'application/xml': { schema: Type.String() } } } },
  submitted: { 200: { description: 'Empty; one Link rel="item" header per task created' } },
  task: { 200: { description: 'One task', content: { 'application/json': { schema: Type.Object({ task: Type.Object({ id: Type.Integer(), state: Type.String() }, { additionalProperties: true }) }) } } } }
}
