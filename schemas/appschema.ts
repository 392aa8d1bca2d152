// Application-schema data stores under {base}/rest/workspaces/<ws>/datastores.
import { Type } from '@fastify/type-provider-typebox'
import { Binary, namedList, representation } from './common.js'

export const WsParams = Type.Object({ ws: Type.String() })
export const StoreParams = Type.Object({ ws: Type.String(), store: Type.String() })
export const FileParams = Type.Object({ ws: Type.String(), store: Type.String(), format: Type.String() })
export const FtParams = Type.Object({ ws: Type.String(), store: Type.String(), ft: Type.String() })
export const UploadQuery = Type.Object({ configure: Type.Optional(Type.String()), filename: Type.Optional(Type.String()), charset: Type.Optional(Type.String({ description: 'file.shp, external.shp: the .dbf charset (default ISO-8859-1)' })), update: Type.Optional(Type.String({ description: 'file.shp, file.gpkg: overwrite (the default; append is refused)' })) })
export const ListQuery = Type.Object({ list: Type.Optional(Type.String()) })
export const DeleteQuery = Type.Object({ recurse: Type.Optional(Type.Boolean()), purge: Type.Optional(Type.String()) })

export const responses = {
  stores: { 200: representation('The data stores of the workspace', namedList('dataStores', 'dataStore')) },
  store: { 200: representation('The data store (connection parameters, workspace, feature types link)', Type.Object({ dataStore: Type.Object({ name: Type.String() }, { additionalProperties: true }) })) },
  featureTypes: { 200: representation('The feature types (list=configured), or their names (list=available...)', Type.Object({}, { additionalProperties: true })) },
  featureType: { 200: representation('The feature type', Type.Object({ featureType: Type.Object({ name: Type.String() }, { additionalProperties: true }) })) },
  zip: { 200: { description: 'The store\'s files', content: { 'application/zip': { schema: Binary } } } }
}
