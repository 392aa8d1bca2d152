// OGC Filter 1.0/1.1 and FES 2.0 XML to the filter tree: every operator the WFS advertises, literals
// typed for their attribute, LIKE patterns with the request's own wildcards, BBOX corners in each CRS
// form's axis order, the id filters, and refusals that name the operator or property.
import t from 'tap'
import { parseXmlElements } from '../../../services/files/xml.js'
import { crsName, likeFromOgc, parseOgcFilter } from '../../../services/filters/ogc-xml.js'
import { toPg, quotePgName } from '../../../services/filters/pg.js'
import { lonToX, latToY } from '../../../services/render/crs.js'

const ctx = {
  attributes: [{ name: 'name', type: 'String' }, { name: 'pop', type: 'Integer' }, { name: 'when', type: 'Date' }, { name: 'ok', type: 'Boolean' }, { name: 'geom', type: 'Geometry' }],
  crs: 'EPSG:4326',
  localId: (id: string) => id.startsWith('places.') ? id.slice(7) : undefined
}
const FES = 'xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2"'
const parse = async (xml: string, c = ctx) => parseOgcFilter(await parseXmlElements(xml), c)
const fes = (inner: string) => parse(`<fes:Filter ${FES}>${inner}</fes:Filter>`)

t.test('comparisons, logic and typing', async (t) => {
  t.same(await fes('<fes:PropertyIsGreaterThan><fes:ValueReference>pop</fes:ValueReference><fes:Literal> 10 </fes:Literal></fes:PropertyIsGreaterThan>'),
    { k: 'cmp', op: '>', l: { k: 'property', name: 'pop' }, r: { k: 'value', v: 10 } })
  t.same(await fes('<fes:And><fes:PropertyIsEqualTo><fes:ValueReference>ok</fes:ValueReference><fes:Literal>true</fes:Literal></fes:PropertyIsEqualTo><fes:PropertyIsNull><fes:ValueReference>vx:places/vx:name</fes:ValueReference></fes:PropertyIsNull><fes:Not><fes:PropertyIsNil><fes:ValueReference>when</fes:ValueReference></fes:PropertyIsNil></fes:Not></fes:And>'), {
    k: 'and',
    a: { k: 'and', a: { k: 'cmp', op: '=', l: { k: 'property', name: 'ok' }, r: { k: 'value', v: true } }, b: { k: 'null', e: { k: 'property', name: 'name' } } },
    b: { k: 'not', a: { k: 'null', e: { k: 'property', name: 'when' } } }
  })
  t.same(await fes('<fes:PropertyIsBetween><fes:ValueReference>when</fes:ValueReference><fes:LowerBoundary><fes:Literal>2024-01-01</fes:Literal></fes:LowerBoundary><fes:UpperBoundary><fes:Literal>2024-02-01T12:00:00+01:00</fes:Literal></fes:UpperBoundary></fes:PropertyIsBetween>'),
    { k: 'between', e: { k: 'property', name: 'when' }, lo: { k: 'value', v: '2024-01-01T00:00:00.000Z' }, hi: { k: 'value', v: '2024-02-01T11:00:00.000Z' } })
  t.same(await fes('<fes:PropertyIsNotEqualTo matchCase="false"><fes:ValueReference>name</fes:ValueReference><fes:Literal>A_b%</fes:Literal></fes:PropertyIsNotEqualTo>'),
    { k: 'not', a: { k: 'like', e: { k: 'property', name: 'name' }, pattern: 'A\\_b\\%', ci: true } })
  // Filter 1.1 names.
  t.same(await parse('<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:Or><ogc:PropertyIsLessThanOrEqualTo><ogc:PropertyName>pop</ogc:PropertyName><ogc:Literal>5</ogc:Literal></ogc:PropertyIsLessThanOrEqualTo><ogc:PropertyIsEqualTo><ogc:PropertyName>name</ogc:PropertyName><ogc:Literal>x</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Or></ogc:Filter>'), {
    k: 'or', a: { k: 'cmp', op: '<=', l: { k: 'property', name: 'pop' }, r: { k: 'value', v: 5 } }, b: { k: 'cmp', op: '=', l: { k: 'property', name: 'name' }, r: { k: 'value', v: 'x' } }
  })
})

t.test('LIKE: the request\'s wildcard, single character and escape become % _ \\', async (t) => {
  t.equal(likeFromOgc('*a.b!*c%_', '*', '.', '!'), '%a_b*c\\%\\_')
  t.equal(likeFromOgc('Al#%', '#', '?', '\\'), 'Al%\\%')
  t.same(await fes('<fes:PropertyIsLike wildCard="*" singleChar="." escapeChar="!" matchCase="false"><fes:ValueReference>name</fes:ValueReference><fes:Literal>a*</fes:Literal></fes:PropertyIsLike>'),
    { k: 'like', e: { k: 'property', name: 'name' }, pattern: 'a%', ci: true })
})

t.test('BBOX: axis order by CRS form, other CRSs taken to the source\'s', async (t) => {
  const env = (srs: string, lo: string, hi: string) => fes(`<fes:BBOX><fes:ValueReference>geom</fes:ValueReference><gml:Envelope${srs ? ` srsName="${srs}"` : ''}><gml:lowerCorner>${lo}</gml:lowerCorner><gml:upperCorner>${hi}</gml:upperCorner></gml:Envelope></fes:BBOX>`)
  t.same(await env('urn:ogc:def:crs:EPSG::4326', '1 2', '3 4'), { k: 'bbox', env: [2, 1, 4, 3] })
  t.same(await env('http://www.opengis.net/def/crs/EPSG/0/4326', '1 2', '3 4'), { k: 'bbox', env: [2, 1, 4, 3] })
  t.same(await env('EPSG:4326', '1 2', '3 4'), { k: 'bbox', env: [1, 2, 3, 4] })
  t.same(await env('', '1 2', '3 4'), { k: 'bbox', env: [1, 2, 3, 4] })
  const m = await env('EPSG:3857', `${lonToX(10)} ${latToY(20)}`, `${lonToX(11)} ${latToY(21)}`) as { env: number[] }
  t.same(m.env.map((v) => Math.round(v * 1e6) / 1e6), [10, 20, 11, 21])
  t.same(await parse('<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml"><ogc:BBOX><ogc:PropertyName>geom</ogc:PropertyName><gml:Box srsName="EPSG:4326"><gml:coordinates>1,2 3,4</gml:coordinates></gml:Box></ogc:BBOX></ogc:Filter>'), { k: 'bbox', env: [1, 2, 3, 4] })
  t.same(crsName('urn:x-ogc:def:crs:EPSG:4326'), { code: 'EPSG:4326', latFirst: true })
  t.same(crsName('CRS:84'), { code: 'EPSG:4326', latFirst: false })
  t.same(crsName('urn:ogc:def:crs:EPSG::3857'), { code: 'EPSG:3857', latFirst: false })
  t.equal(crsName('EPSG:999999'), undefined)
})

t.test('ids: ResourceId, FeatureId and GmlObjectId as one fid node, compiled on the key as text', async (t) => {
  const f = await parse('<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml"><ogc:FeatureId fid="places.1"/><ogc:GmlObjectId gml:id="places.7"/><ogc:FeatureId fid="roads.2"/></ogc:Filter>')
  t.same(f, { k: 'fid', ids: ['1', '7'] })
  t.same(await fes('<fes:ResourceId rid="places.3"/>'), { k: 'fid', ids: ['3'] })
  const values: unknown[] = []
  const sql = toPg(f, {
    property: quotePgName, propertyText: quotePgName, value: (v, b) => b(v), footprint: ['a', 'b', 'c', 'd'],
    featureId: (ids, b) => `("gid"::text IN (${ids.map((i) => b(i)).join(', ')}))`
  }, (v) => { values.push(v); return `$${values.length}` })
  t.equal(sql, '("gid"::text IN ($1, $2))')
  t.same(values, ['1', '7'])
  t.throws(() => toPg(f, { property: quotePgName, propertyText: quotePgName, value: (v, b) => b(v), footprint: ['a', 'b', 'c', 'd'] }, () => '$1'), { code: 'MW_VECTOR_INVALID_QUERY' })
})

t.test('spatial operators: the GML literal in the source CRS, the distance in its units, compiled with bound values', async (t) => {
  const f = await fes(`<fes:DWithin><fes:ValueReference>geom</fes:ValueReference><gml:Point srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>10 20</gml:pos></gml:Point><fes:Distance uom="km">111.31949079327357</fes:Distance></fes:DWithin>`)
  t.match(f, { k: 'spatial', op: 'dwithin', name: 'geom', geo: { type: 'Point', coordinates: [20, 10] } })
  t.ok(Math.abs((f as { distance: number }).distance - 1) < 1e-12, 'km on a geographic CRS: degrees at the equator')
  const values: unknown[] = []
  const target = { property: quotePgName, propertyText: quotePgName, value: (v: unknown, b: (v: unknown) => string) => b(v), footprint: ['a', 'b', 'c', 'd'] as const, geometry: (n: string) => ({ sql: quotePgName(n), srid: 4326 }) }
  const bind = (v: unknown) => { values.push(v); return `$${values.length}` }
  t.equal(toPg({ k: 'not', a: f }, target, bind), '(NOT ST_DWithin("geom", ST_SetSRID(ST_GeomFromGeoJSON($1::text), $2::integer), $3::double precision))')
  t.same(values, ['{"type":"Point","coordinates":[20,10]}', 4326, (f as { distance: number }).distance])
  // A quote in a coordinate never reaches SQL: the GML is refused before.
  await t.rejects(fes(`<fes:Intersects><gml:Point><gml:pos>1' 2</gml:pos></gml:Point></fes:Intersects>`), { code: 'MW_FILTER_INVALID_XML', message: /gml:pos/ })
  values.length = 0
  const b = await fes('<fes:Beyond><gml:Envelope srsName="EPSG:3857"><gml:lowerCorner>0 0</gml:lowerCorner><gml:upperCorner>1000 1000</gml:upperCorner></gml:Envelope><fes:Distance uom="furlong">2</fes:Distance></fes:Beyond>')
  t.match(b, { k: 'spatial', op: 'beyond', name: 'geom', geo: { type: 'Polygon' }, distance: 2 }, 'an envelope as its polygon, an unknown unit in the CRS units')
  t.equal(toPg(b, target, bind), '(NOT ST_DWithin("geom", ST_SetSRID(ST_GeomFromGeoJSON($1::text), $2::integer), $3::double precision))')
  const i = await fes('<fes:Intersects><fes:ValueReference>geom</fes:ValueReference><gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>0 0 1 0 1 1 0 0</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></fes:Intersects>')
  values.length = 0
  t.equal(toPg(i, target, bind), 'ST_Intersects("geom", ST_SetSRID(ST_GeomFromGeoJSON($1::text), $2::integer))')
  t.same(values, ['{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}', 4326])
  // A target without geometries (a granule index of rectangular footprints): Intersects by the literal's envelope, nothing else.
  values.length = 0
  t.equal(toPg(i, { ...target, geometry: undefined }, bind), '(c >= $1::double precision AND a <= $2::double precision AND d >= $3::double precision AND b <= $4::double precision)')
  t.same(values, [0, 1, 0, 1])
  t.throws(() => toPg({ ...(i as object), op: 'within' } as typeof i, { ...target, geometry: undefined }, bind), { code: 'MW_VECTOR_INVALID_QUERY', message: /within cannot be evaluated here/ })
})

t.test('refusals name what is wrong', async (t) => {
  await t.rejects(fes('<fes:Intersects><fes:ValueReference>geom</fes:ValueReference></fes:Intersects>'), { code: 'MW_FILTER_INVALID_XML', message: /Intersects needs a GML geometry/ })
  await t.rejects(fes('<fes:Intersects><fes:ValueReference>geom</fes:ValueReference><fes:Literal>POINT(0 0)</fes:Literal></fes:Intersects>'), { code: 'MW_FILTER_UNSUPPORTED_OPERATOR', message: /Literal/ })
  await t.rejects(fes('<fes:Within><fes:ValueReference>name</fes:ValueReference><gml:Point><gml:pos>0 0</gml:pos></gml:Point></fes:Within>'), { code: 'MW_FILTER_INVALID_XML', message: /name is not a geometry property/ })
  await t.rejects(fes('<fes:Beyond><gml:Point><gml:pos>0 0</gml:pos></gml:Point></fes:Beyond>'), { code: 'MW_FILTER_INVALID_XML', message: /Beyond needs a Distance/ })
  await t.rejects(fes('<fes:After><fes:ValueReference>when</fes:ValueReference></fes:After>'), { code: 'MW_FILTER_UNSUPPORTED_OPERATOR', message: /After/ })
  await t.rejects(fes('<fes:PropertyIsEqualTo><fes:ValueReference>nope</fes:ValueReference><fes:Literal>1</fes:Literal></fes:PropertyIsEqualTo>'), { code: 'MW_FILTER_INVALID_XML', message: /unknown property "nope"/ })
  await t.rejects(fes('<fes:PropertyIsEqualTo><fes:ValueReference>pop</fes:ValueReference><fes:Literal>ten</fes:Literal></fes:PropertyIsEqualTo>'), { code: 'MW_FILTER_INVALID_XML', message: /"ten" is not a number/ })
  await t.rejects(fes('<fes:PropertyIsEqualTo><fes:ValueReference>when</fes:ValueReference><fes:Literal>soon</fes:Literal></fes:PropertyIsEqualTo>'), { code: 'MW_FILTER_INVALID_XML', message: /ISO 8601/ })
  await t.rejects(fes('<fes:PropertyIsEqualTo><fes:ValueReference>pop</fes:ValueReference><fes:Function name="abs"/></fes:PropertyIsEqualTo>'), { code: 'MW_FILTER_UNSUPPORTED_OPERATOR', message: /Function/ })
  await t.rejects(fes('<fes:PropertyIsEqualTo><fes:ValueReference>geom</fes:ValueReference><fes:Literal>1</fes:Literal></fes:PropertyIsEqualTo>'), { code: 'MW_FILTER_INVALID_XML', message: /only be used in spatial operators/ })
  await t.rejects(fes('<fes:And><fes:PropertyIsNull><fes:ValueReference>pop</fes:ValueReference></fes:PropertyIsNull></fes:And>'), { code: 'MW_FILTER_INVALID_XML', message: /at least two/ })
  await t.rejects(parse(`<fes:Filter ${FES}/>`), { code: 'MW_FILTER_INVALID_XML', message: /empty Filter/ })
  let deep = '<fes:PropertyIsNull><fes:ValueReference>pop</fes:ValueReference></fes:PropertyIsNull>'
  for (let i = 0; i < 70; i++) deep = `<fes:Not>${deep}</fes:Not>`
  await t.rejects(fes(deep), { code: 'MW_FILTER_INVALID_XML', message: /deeper than 64/ })
})
