// DescribeFeatureType: the XML Schema of feature types as GeoServer writes it, the attributes'
// bindings mapped to XSD types and the geometries to the property types of each GML: GML 3.2 (WFS
// 2.0.0) and GML 3.1.1 (1.1.0) with GeoServer's GML3 profile (MultiPolygon → MultiSurface,
// MultiLineString → MultiCurve, Polygon → Surface, LineString → Curve), GML 2.1.2 (1.0.0) with
// the simple types. Types of several namespaces: a schema that imports each namespace's own
// DescribeFeatureType, as GeoServer does.
import { isGeometryBinding } from '../filters/bindings.js'
import type { AttributeInfo } from '../vector/source.js'
import type { ServedType } from './wfs-context.js'
import type { WfsVersion } from './request.js'
import { escapeXml } from '../xml-escape.js'

const x = (s: string) => escapeXml(s)

const XSD: Record<string, string> = {
  'java.lang.String': 'xsd:string', 'java.lang.Integer': 'xsd:int', 'java.lang.Long': 'xsd:long', 'java.lang.Short': 'xsd:short',
  'java.lang.Double': 'xsd:double', 'java.lang.Float': 'xsd:float', 'java.math.BigDecimal': 'xsd:decimal', 'java.math.BigInteger': 'xsd:integer',
  'java.lang.Boolean': 'xsd:boolean', 'java.sql.Date': 'xsd:date', 'java.sql.Timestamp': 'xsd:dateTime', 'java.util.Date': 'xsd:dateTime',
  'java.sql.Time': 'xsd:time', 'java.util.UUID': 'xsd:string', '[B': 'xsd:base64Binary', 'java.lang.Object': 'xsd:anyType'
}
const GML3: Record<string, string> = {
  Point: 'PointPropertyType', MultiPoint: 'MultiPointPropertyType', LineString: 'CurvePropertyType', MultiLineString: 'MultiCurvePropertyType',
  Polygon: 'SurfacePropertyType', MultiPolygon: 'MultiSurfacePropertyType', GeometryCollection: 'MultiGeometryPropertyType', Geometry: 'GeometryPropertyType'
}
const GML2: Record<string, string> = {
  Point: 'PointPropertyType', MultiPoint: 'MultiPointPropertyType', LineString: 'LineStringPropertyType', MultiLineString: 'MultiLineStringPropertyType',
  Polygon: 'PolygonPropertyType', MultiPolygon: 'MultiPolygonPropertyType', GeometryCollection: 'MultiGeometryPropertyType', Geometry: 'GeometryPropertyType'
}


export { isGeometryBinding }

/** The XSD type of an attribute in the GML of a version. */
export function xsdType (a: AttributeInfo, version: WfsVersion): string {
  if (isGeometryBinding(a.binding)) {
    const g = a.binding.slice('org.locationtech.jts.geom.'.length)
    return `gml:${(version === '1.0.0' ? GML2 : GML3)[g] ?? 'GeometryPropertyType'}`
  }
  return XSD[a.binding] ?? 'xsd:string'
}

export const GML_NS: Record<WfsVersion, string> = { '2.0.0': 'http://www.opengis.net/gml/3.2', '1.1.0': 'http://www.opengis.net/gml', '1.0.0': 'http://www.opengis.net/gml' }
const GML_SCHEMA: Record<WfsVersion, string> = {
  '2.0.0': 'http://schemas.opengis.net/gml/3.2.1/gml.xsd',
  '1.1.0': 'http://schemas.opengis.net/gml/3.1.1/base/gml.xsd',
  '1.0.0': 'http://schemas.opengis.net/gml/2.1.2/feature.xsd'
}
export const DESCRIBE_TYPES: Record<WfsVersion, string> = {
  '2.0.0': 'application/gml+xml; version=3.2',
  '1.1.0': 'text/xml; subtype=gml/3.1.1',
  '1.0.0': 'text/xml; subtype=gml/2.1.2'
}

/** The schema of types of one namespace. */
export function featureTypeSchema (types: ServedType[], version: WfsVersion): string {
  const { prefix, uri } = types[0]
  const substitution = version === '2.0.0' ? 'gml:AbstractFeature' : 'gml:_Feature'
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:gml="${GML_NS[version]}" xmlns:${prefix}="${x(uri)}" elementFormDefault="qualified" targetNamespace="${x(uri)}">`,
    `  <xsd:import namespace="${GML_NS[version]}" schemaLocation="${GML_SCHEMA[version]}"/>`
  ]
  for (const t of types) {
    const name = x(t.ft.name)
    out.push(`  <xsd:complexType name="${name}Type">`, '    <xsd:complexContent>', '      <xsd:extension base="gml:AbstractFeatureType">', '        <xsd:sequence>')
    for (const a of t.attributes) {
      out.push(`          <xsd:element maxOccurs="${a.maxOccurs}" minOccurs="${a.minOccurs}" name="${x(a.name)}" nillable="${a.nillable}" type="${xsdType(a, version)}"/>`)
    }
    out.push('        </xsd:sequence>', '      </xsd:extension>', '    </xsd:complexContent>', '  </xsd:complexType>',
      `  <xsd:element name="${name}" substitutionGroup="${substitution}" type="${x(prefix)}:${name}Type"/>`)
  }
  out.push('</xsd:schema>')
  return out.join('\n') + '\n'
}

/** The schema of types of several namespaces: one import per namespace, of its DescribeFeatureType. */
export function importingSchema (byNamespace: ServedType[][], version: WfsVersion, url: string): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', '<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">']
  for (const types of byNamespace) {
    const href = `${url}service=WFS&version=${version}&request=DescribeFeatureType&typeName=${types.map((t) => encodeURIComponent(t.qualified)).join(',')}`
    out.push(`  <xsd:import namespace="${x(types[0].uri)}" schemaLocation="${x(href)}"/>`)
  }
  out.push('</xsd:schema>')
  return out.join('\n') + '\n'
}
