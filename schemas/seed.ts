// GeoWebCache's seed API under {base}/tilecache/rest and {base}/gwc/rest, and the export.
import { Type } from '@fastify/type-provider-typebox'
import { looseQuery, QueryValue } from './common.js'

export const LayerParams = Type.Object({ layer: Type.String() })
export const TaskParams = Type.Object({ id: Type.String() })
export const FileParams = Type.Object({ file: Type.String() })
export const AreaQuery = Type.Object({ olderThan: Type.Optional(QueryValue) })
/** Checked by the export, with its own messages; parameter filters (any other name) pass through. */
export const ExportQuery = looseQuery('gridSetId', 'zoomStart', 'zoomStop', 'bounds', 'format')
/** `{ seedRequest, geometry, olderThan }`: its fields are checked by the tile cache, with GWC's messages. */
export const AreaBody = Type.Unsafe<Record<string, unknown>>({ description: 'A JSON object { seedRequest, geometry, olderThan }' })

/** GWC's `long[][]`: one [done, total, remaining, id, status] row per task. */
const TaskRows = Type.Object({ 'long-array-array': Type.Array(Type.Array(Type.Integer())) })

export const responses = {
  tasks: { 200: { description: 'Pending and running tasks as [done, total, remaining, id, status] rows', content: { 'application/json': { schema: TaskRows }, 'application/xml': { schema: Type.String() } } } },
  submitted: { 200: { description: 'Empty; one Link rel="item" header per task created' } },
  task: { 200: { description: 'One task', content: { 'application/json': { schema: Type.Object({ task: Type.Object({ id: Type.Integer(), state: Type.String() }, { additionalProperties: true }) }) } } } }
}
