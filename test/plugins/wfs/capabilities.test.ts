// WFS GetCapabilities and DescribeFeatureType through HTTP: each version's document (operations and
// their URLs, proxyBaseUrl, output formats, feature types with default CRS and WGS84 bounds, filter
// capabilities), version negotiation (VERSION, AcceptVersions), and the XML Schema of types in each
// GML (GeoServer's property types for each geometry), one type, several, or all.
import t from 'tap'
import { ADMIN, BASE } from '../../helper.js'
import { wfsGet, wfsSetup } from './helpers.js'

const { app } = await wfsSetup(t)
const caps = (params: Record<string, string>) => wfsGet(app, { service: 'WFS', request: 'GetCapabilities', ...params })

t.test('2.0.0: operations with their URLs, constraints, feature types, FES filter capabilities', async (t) => {
  const r = await caps({ version: '2.0.0' })
  t.equal(r.statusCode, 200)
  t.equal(r.headers['content-type'], 'application/xml')
  const b = r.body
  t.match(b, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<wfs:WFS_Capabilities version="2.0.0" xmlns:wfs="http:\/\/www.opengis.net\/wfs\/2.0" xmlns:ows="http:\/\/www.opengis.net\/ows\/1.1"/)
  for (const op of ['GetCapabilities', 'DescribeFeatureType', 'GetPropertyValue', 'ListStoredQueries', 'DescribeStoredQueries', 'GetFeature']) {
    t.ok(b.includes(`<ows:Operation name="${op}"><ows:DCP><ows:HTTP><ows:Get xlink:href="http://localhost:80/geoserver/wfs?"/><ows:Post xlink:href="http://localhost:80/geoserver/wfs"/></ows:HTTP></ows:DCP>`), op)
  }
  t.ok(b.includes('<ows:Operation name="Transaction"><ows:DCP><ows:HTTP><ows:Post xlink:href="http://localhost:80/geoserver/wfs"/></ows:HTTP></ows:DCP>'), 'Transaction by POST')
  t.ok(b.includes('<ows:Constraint name="ImplementsBasicWFS"><ows:NoValues/><ows:DefaultValue>TRUE</ows:DefaultValue></ows:Constraint>'))
  t.ok(b.includes('<ows:Constraint name="ImplementsTransactionalWFS"><ows:NoValues/><ows:DefaultValue>TRUE</ows:DefaultValue></ows:Constraint>'))
  t.ok(b.includes('<ows:Constraint name="CountDefault"><ows:NoValues/><ows:DefaultValue>1000000</ows:DefaultValue></ows:Constraint>'))
  t.ok(b.includes('<ows:Value>application/json</ows:Value>') && b.includes('<ows:Value>text/xml; subtype=gml/3.1.1</ows:Value>') && b.includes('<ows:Value>csv</ows:Value>'))
  t.same([...b.matchAll(/<wfs:Name>([^<]+)<\/wfs:Name>/g)].map((m) => m[1]), ['vx:parcels', 'vx:places', 'vx:roads'])
  t.ok(b.includes('<wfs:FeatureType xmlns:vx="http://mapwarden.org/ns/vx"><wfs:Name>vx:places</wfs:Name><wfs:Title>places</wfs:Title><wfs:Abstract></wfs:Abstract><ows:Keywords><ows:Keyword>features</ows:Keyword><ows:Keyword>places</ows:Keyword></ows:Keywords>' +
    '<wfs:DefaultCRS>urn:ogc:def:crs:EPSG::4326</wfs:DefaultCRS><ows:WGS84BoundingBox><ows:LowerCorner>-10 -5</ows:LowerCorner><ows:UpperCorner>20 40</ows:UpperCorner></ows:WGS84BoundingBox></wfs:FeatureType>'), b)
  t.match(b, /<wfs:Name>vx:roads<\/wfs:Name>.*<wfs:DefaultCRS>urn:ogc:def:crs:EPSG::3857<\/wfs:DefaultCRS><ows:WGS84BoundingBox><ows:LowerCorner>-20 0<\/ows:LowerCorner><ows:UpperCorner>10 10/)
  t.ok(b.includes('<fes:ComparisonOperator name="PropertyIsLike"/>') && b.includes('<fes:SpatialOperator name="BBOX"/>') && b.includes('<fes:ResourceIdentifier name="fes:ResourceId"/>'))
  t.ok(b.trimEnd().endsWith('</wfs:WFS_Capabilities>'))
})

t.test('1.1.0 and 1.0.0: their own documents', async (t) => {
  const r11 = await caps({ version: '1.1.0' })
  t.match(r11.body, /<wfs:WFS_Capabilities version="1.1.0" xmlns:wfs="http:\/\/www.opengis.net\/wfs" xmlns:ows="http:\/\/www.opengis.net\/ows"/)
  t.ok(r11.body.includes('<wfs:DefaultSRS>urn:x-ogc:def:crs:EPSG:4326</wfs:DefaultSRS><wfs:OutputFormats><wfs:Format>text/xml; subtype=gml/3.1.1</wfs:Format></wfs:OutputFormats>'))
  t.ok(r11.body.includes('<ogc:ComparisonOperator>Between</ogc:ComparisonOperator>') && r11.body.includes('<ogc:Id_Capabilities><ogc:FID/><ogc:EID/></ogc:Id_Capabilities>'))
  const r10 = await caps({ version: '1.0.0' })
  t.match(r10.body, /<WFS_Capabilities version="1.0.0" xmlns="http:\/\/www.opengis.net\/wfs"/)
  t.ok(r10.body.includes('<FeatureType><Name>vx:places</Name><Title>places</Title><Abstract></Abstract><Keywords>features, places</Keywords><SRS>EPSG:4326</SRS><LatLongBoundingBox minx="-10" miny="-5" maxx="20" maxy="40"/></FeatureType>'), r10.body)
  t.ok(r10.body.includes('<GetFeature><ResultFormat><GML2/><GML3/><JSON/><CSV/></ResultFormat><DCPType><HTTP><Get onlineResource="http://localhost:80/geoserver/wfs?"/></HTTP></DCPType>'))
})

t.test('version negotiation: AcceptVersions in the client\'s order, VERSION, the highest by default', async (t) => {
  const versionOf = async (params: Record<string, string>) => /WFS_Capabilities version="([^"]+)"/.exec((await caps(params)).body)?.[1]
  t.equal(await versionOf({}), '2.0.0')
  t.equal(await versionOf({ acceptversions: '1.1.0,2.0.0' }), '1.1.0')
  t.equal(await versionOf({ AcceptVersions: '3.0.0,1.0.0' }), '1.0.0')
  t.equal(await versionOf({ version: '1.1' }), '1.1.0')
  t.equal(await versionOf({ version: '1.5.0' }), '1.1.0', 'an unknown version: the nearest lower')
  t.equal(await versionOf({ version: '9.9.9' }), '2.0.0')
  const failed = await caps({ acceptVersions: '3.0.0,0.9' })
  t.equal(failed.statusCode, 400)
  t.match(failed.body, /<ows:Exception exceptionCode="VersionNegotiationFailed" locator="AcceptVersions">/)
})

t.test('proxyBaseUrl makes every URL of the documents', async (t) => {
  const put = await app.inject({ method: 'PUT', url: `${BASE}/rest/settings`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { global: { settings: { proxyBaseUrl: 'https://maps.example.org/gs' } } } })
  t.equal(put.statusCode, 200, put.body)
  t.teardown(async () => {
    await app.inject({ method: 'PUT', url: `${BASE}/rest/settings`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { global: { settings: { proxyBaseUrl: '' } } } })
  })
  const r = await caps({ version: '2.0.0' })
  t.ok(r.body.includes('<ows:Get xlink:href="https://maps.example.org/gs/wfs?"/>'))
  t.notOk(r.body.includes('localhost'))
  const gf = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'vx:places', count: 1 })
  t.match(gf.body, / next="https:\/\/maps.example.org\/gs\/wfs\?/)
})

t.test('DescribeFeatureType: the XML Schema of each GML, one type, several, all', async (t) => {
  const d = (version: string, typeName?: string) => wfsGet(app, { service: 'WFS', version, request: 'DescribeFeatureType', ...(typeName ? { typeName } : {}) })
  const v20 = await d('2.0.0', 'vx:parcels,vx:roads')
  t.equal(v20.statusCode, 200)
  t.equal(v20.headers['content-type'], 'application/gml+xml; version=3.2')
  t.equal(v20.body, [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:vx="http://mapwarden.org/ns/vx" elementFormDefault="qualified" targetNamespace="http://mapwarden.org/ns/vx">',
    '  <xsd:import namespace="http://www.opengis.net/gml/3.2" schemaLocation="http://schemas.opengis.net/gml/3.2.1/gml.xsd"/>',
    '  <xsd:complexType name="parcelsType">',
    '    <xsd:complexContent>',
    '      <xsd:extension base="gml:AbstractFeatureType">',
    '        <xsd:sequence>',
    '          <xsd:element maxOccurs="1" minOccurs="0" name="value" nillable="true" type="xsd:decimal"/>',
    '          <xsd:element maxOccurs="1" minOccurs="0" name="geom" nillable="true" type="gml:MultiSurfacePropertyType"/>',
    '        </xsd:sequence>',
    '      </xsd:extension>',
    '    </xsd:complexContent>',
    '  </xsd:complexType>',
    '  <xsd:element name="parcels" substitutionGroup="gml:AbstractFeature" type="vx:parcelsType"/>',
    '  <xsd:complexType name="roadsType">',
    '    <xsd:complexContent>',
    '      <xsd:extension base="gml:AbstractFeatureType">',
    '        <xsd:sequence>',
    '          <xsd:element maxOccurs="1" minOccurs="0" name="kind" nillable="true" type="xsd:string"/>',
    '          <xsd:element maxOccurs="1" minOccurs="0" name="geom" nillable="true" type="gml:CurvePropertyType"/>',
    '        </xsd:sequence>',
    '      </xsd:extension>',
    '    </xsd:complexContent>',
    '  </xsd:complexType>',
    '  <xsd:element name="roads" substitutionGroup="gml:AbstractFeature" type="vx:roadsType"/>',
    '</xsd:schema>',
    ''
  ].join('\n'))
  const v11 = await d('1.1.0', 'vx:places')
  t.equal(v11.headers['content-type'], 'text/xml; subtype=gml/3.1.1')
  t.ok(v11.body.includes('<xsd:import namespace="http://www.opengis.net/gml" schemaLocation="http://schemas.opengis.net/gml/3.1.1/base/gml.xsd"/>'))
  t.ok(v11.body.includes('<xsd:element maxOccurs="1" minOccurs="1" name="name" nillable="false" type="xsd:string"/>'))
  t.ok(v11.body.includes('name="pop" nillable="true" type="xsd:int"/>') && v11.body.includes('name="founded" nillable="true" type="xsd:date"/>') && v11.body.includes('name="capital" nillable="true" type="xsd:boolean"/>'))
  t.ok(v11.body.includes('<xsd:element name="places" substitutionGroup="gml:_Feature" type="vx:placesType"/>'))
  const v10 = await d('1.0.0', 'vx:parcels')
  t.ok(v10.body.includes('type="gml:MultiPolygonPropertyType"') && v10.body.includes('schemaLocation="http://schemas.opengis.net/gml/2.1.2/feature.xsd"'))
  const all = await d('2.0.0')
  t.same([...all.body.matchAll(/<xsd:element name="(\w+)"/g)].map((m) => m[1]), ['parcels', 'places', 'roads'])
  const bare = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'DescribeFeatureType', typeNames: 'roads' }, {}, '/vx/wfs')
  t.match(bare.body, /<xsd:element name="roads"/)
})
