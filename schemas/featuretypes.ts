// Feature types of PostGIS data stores (GeoServer's FeatureTypeController): the lists, the
// feature type resource, and the body of POST and PUT (GeoServer's FeatureTypeInfo).
import { Type } from '@fastify/type-provider-typebox'
import { BooleanText, CreatedName, Empty, field, fields, rootBody } from './common.js'

export { WsParams, StoreParams, FtParams, ListQuery, responses as featureTypeResponses } from './appschema.js'

export const FtDeleteQuery = Type.Object({ recurse: Type.Optional(Type.Boolean()) })
export const FtPutQuery = Type.Object({ recalculate: Type.Optional(Type.String({ description: 'nativebbox, latlonbbox or both (comma-separated): recompute those bounds from the data' })) })

const Bbox = Type.Object({}, { additionalProperties: true, description: 'minx, maxx, miny, maxy (finite numbers, min <= max) and crs' })

/** POST and PUT: `{ featureType: {...} }`; what GET shows may be sent back. */
export const FeatureTypeBody = rootBody(['featureType'], fields({
  name: field('The feature type and layer name (POST: default nativeName; PUT: cannot change, 403)', Type.String()),
  nativeName: field('The table or view of the store\'s schema (default: name)', Type.String()),
  title: field('Default: the name', Type.String()),
  abstract: field('Free text', Type.String()),
  keywords: field('<keywords><string>..</string></keywords> (default: features and the native name)'),
  srs: field('The declared CRS, EPSG:<code> (default: the geometry column\'s SRID)', Type.String()),
  projectionPolicy: field('FORCE_DECLARED, REPROJECT_TO_DECLARED or NONE (default: FORCE_DECLARED when srs is the native CRS)', Type.String()),
  nativeBoundingBox: field('Default: computed from the data (exact, or estimated with the store\'s "Estimated extends")', Bbox),
  latLonBoundingBox: field('Default: the native bounds in EPSG:4326', Bbox),
  enabled: field('Whether the feature type and its layer are enabled (default true)', BooleanText),
  attributes: field('POST: the columns to publish (default: all); PUT: as GET shows them'),
  metadata: field('An SQL view: <entry key="JDBC_VIRTUAL_TABLE"><virtualTable> (name, sql, escapeSql, keyColumn, geometry, parameter) on a PostGIS store; no other entry is kept')
}, 'Other fields are refused by name; namespace, store, nativeCRS and GeoServer\'s service flags are accepted as GET shows them'))

export const responses = {
  created: { 201: CreatedName },
  done: { 200: Empty }
}
