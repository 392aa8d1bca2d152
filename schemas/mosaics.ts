// Image mosaics: coverage stores, coverages and granule indexes under {base}/rest/workspaces/<ws>.
// Query parameters are read loosely (the last of repeated values wins, unknown ones are refused
// by name where GeoServer drops them unread), so they are described, not constrained.
import { Type } from '@fastify/type-provider-typebox'
import { looseQuery, namedList, representation } from './common.js'

export const WsParams = Type.Object({ ws: Type.String() })
export const StoreParams = Type.Object({ ws: Type.String(), store: Type.String() })
export const UploadParams = Type.Object({ ws: Type.String(), store: Type.String(), upload: Type.String() })
export const CoverageParams = Type.Object({ ws: Type.String(), store: Type.String(), c: Type.String() })
export const WsCoverageParams = Type.Object({ ws: Type.String(), c: Type.String() })
export const GranuleParams = Type.Object({ ws: Type.String(), store: Type.String(), c: Type.String(), fid: Type.String() })

export const UploadQuery = looseQuery('configure', 'coverageName', 'verify')
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

export const responses = {
  stores: { 200: representation('The coverage stores of the workspace', namedList('coverageStores', 'coverageStore')) },
  store: { 200: representation('The coverage store', Type.Object({ coverageStore: Type.Object({ name: Type.String(), type: Type.String(), enabled: Type.Boolean() }, { additionalProperties: true }) })) },
  coverages: { 200: representation('The coverages', namedList('coverages', 'coverage')) },
  coverage: { 200: representation('The coverage', Type.Object({ coverage: Type.Object({ name: Type.String(), nativeName: Type.String() }, { additionalProperties: true }) })) },
  schema: { 200: representation('The granule index schema', Type.Object({ Schema: Type.Object({ attributes: Type.Unknown(), href: Type.String() }) })) },
  granules: { 200: Granules }
}
