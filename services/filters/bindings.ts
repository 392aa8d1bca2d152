// The filter type ('Integer', 'Double', 'Boolean', 'Date', 'Geometry', 'String': what ecql.ts and
// ogc-xml.ts type a literal as) of an attribute's GeoTools binding. One reading for every filter of
// a feature type: WFS (GetFeature's FILTER and CQL_FILTER) and WMS (CQL_FILTER, SLD rule filters).
// An instant (java.sql.Timestamp, java.util.Date) is 'Date': its literals become ISO instants. A
// java.sql.Date or java.sql.Time column is compared as written ('String'): a GeoPackage keeps a DATE
// as the text YYYY-MM-DD, which an instant would never equal; PostgreSQL takes the text as its type.

export const isGeometryBinding = (b: string) => b.startsWith('org.locationtech.jts.geom.')

export function filterType (binding: string): string {
  if (isGeometryBinding(binding)) return 'Geometry'
  if (/^java\.(lang|math)\.(Integer|Long|Short|Byte|BigInteger)$/.test(binding)) return 'Integer'
  if (/^java\.(lang|math)\.(Double|Float|BigDecimal)$/.test(binding)) return 'Double'
  if (binding === 'java.lang.Boolean') return 'Boolean'
  if (binding === 'java.sql.Timestamp' || binding === 'java.util.Date') return 'Date'
  return 'String'
}
