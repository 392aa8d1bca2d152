// Granule feature collections as GeoServer writes them: GML 2
// (WFS 1.0 FeatureCollection, namespace http://www.geoserver.org/rest/granules, fids
// <typeName>.<n>) and GeoJSON (with a crs member and the collection bbox). The GML is templated,
// not built by the REST serializer: GeoTools' writer puts chains of elements on one line.
import { escapeXml } from '../infra/representation.js'
import type { SchemaAttribute } from '../../services/mosaics/indexer.js'
import type { Granule, MosaicRecord } from '../../services/mosaics/store.js'
import { epsgNumber } from '../../services/render/crs.js'

/** java.lang.Double.toString: '0.0', '12.5', '1.0E7'. */
export function javaDouble (n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity'
  const a = Math.abs(n)
  if (a === 0) return Object.is(n, -0) ? '-0.0' : '0.0'
  if (a >= 1e-3 && a < 1e7) return Number.isInteger(n) ? `${n}.0` : String(n)
  const [m, e] = n.toExponential().split('e')
  return `${m.includes('.') ? m : m + '.0'}E${Number(e)}`
}

/** GML 2 coordinates: up to 6 decimals, as GeoTools' coordinate writer rounds them. */
function coord (n: number): string {
  const s = n.toFixed(6)
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s
}

function xmlDate (iso: string): string { return iso.replace(/\.000Z$/, 'Z') }
function jsonDate (iso: string): string { return iso.replace(/Z$/, '+0000') }

function ring (b: [number, number, number, number]): Array<[number, number]> {
  const [x0, y0, x1, y1] = b
  return [[x0, y0], [x0, y1], [x1, y1], [x1, y0], [x0, y0]]
}

function xmlValue (a: SchemaAttribute, v: unknown): string {
  if (a.type === 'Date') return xmlDate(String(v))
  if (a.type === 'Double') return javaDouble(Number(v))
  return String(v)
}

export function granulesGml (mosaic: MosaicRecord, granules: Granule[]): string {
  const srs = `http://www.opengis.net/gml/srs/epsg.xml#${epsgNumber(mosaic.crs ?? 'EPSG:4326')}`
  const geom = mosaic.settings.schema.find((a) => a.type === 'Geometry')!
  const multi = /MultiPolygon$/.test(geom.binding)
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<wfs:FeatureCollection xmlns:wfs="http://www.opengis.net/wfs" xmlns:gf="http://www.geoserver.org/rest/granules" xmlns:gml="http://www.opengis.net/gml" xmlns:ogc="http://www.opengis.net/ogc" xmlns:xs="http://www.w3.org/2001/XMLSchema">',
    '  <gml:boundedBy>'
  ]
  if (granules.length === 0) out.push('    <gml:null>unknown</gml:null>')
  else {
    const b = envelope(granules)
    out.push(`    <gml:Box srsName="${srs}">`,
      `      <gml:coord><gml:X>${javaDouble(b[0])}</gml:X><gml:Y>${javaDouble(b[1])}</gml:Y></gml:coord>`,
      `      <gml:coord><gml:X>${javaDouble(b[2])}</gml:X><gml:Y>${javaDouble(b[3])}</gml:Y></gml:coord>`,
      '    </gml:Box>')
  }
  out.push('  </gml:boundedBy>')
  const el = `gf:${mosaic.typeName}`
  for (const g of granules) {
    const coords = ring(g.bbox).map(([x, y]) => `${coord(x)},${coord(y)}`).join(' ')
    out.push('  <gml:featureMember>',
      `    <${el} fid="${escapeXml(`${mosaic.typeName}.${g.seq}`)}">`,
      '      <gml:boundedBy>',
      `        <gml:Box srsName="${srs}">`,
      `          <gml:coordinates>${coord(g.bbox[0])},${coord(g.bbox[1])} ${coord(g.bbox[2])},${coord(g.bbox[3])}</gml:coordinates>`,
      '        </gml:Box>',
      '      </gml:boundedBy>',
      `      <gf:${geom.name}>`)
    if (multi) {
      out.push(`        <gml:MultiPolygon srsName="${srs}">`,
        '          <gml:polygonMember><gml:Polygon><gml:outerBoundaryIs><gml:LinearRing>',
        `            <gml:coordinates>${coords}</gml:coordinates>`,
        '          </gml:LinearRing></gml:outerBoundaryIs></gml:Polygon></gml:polygonMember>',
        '        </gml:MultiPolygon>')
    } else {
      out.push(`        <gml:Polygon srsName="${srs}"><gml:outerBoundaryIs><gml:LinearRing>`,
        `          <gml:coordinates>${coords}</gml:coordinates>`,
        '        </gml:LinearRing></gml:outerBoundaryIs></gml:Polygon>')
    }
    out.push(`      </gf:${geom.name}>`)
    for (const a of mosaic.settings.schema) {
      if (a.type === 'Geometry') continue
      const v = g.attrs[a.name]
      if (v === null || v === undefined) continue
      out.push(`      <gf:${a.name}>${escapeXml(xmlValue(a, v))}</gf:${a.name}>`)
    }
    if (g.damage !== undefined) out.push(`      <gf:damage>${escapeXml(g.damage)}</gf:damage>`)
    out.push(`    </${el}>`, '  </gml:featureMember>')
  }
  out.push('</wfs:FeatureCollection>')
  return out.join('\n')
}

function envelope (granules: Granule[]): [number, number, number, number] {
  let b = [...granules[0].bbox] as [number, number, number, number]
  for (const g of granules) b = [Math.min(b[0], g.bbox[0]), Math.min(b[1], g.bbox[1]), Math.max(b[2], g.bbox[2]), Math.max(b[3], g.bbox[3])]
  return b
}

export function granulesGeoJson (mosaic: MosaicRecord, granules: Granule[]): string {
  const geom = mosaic.settings.schema.find((a) => a.type === 'Geometry')!
  const multi = /MultiPolygon$/.test(geom.binding)
  const features = granules.map((g) => {
    const properties: Record<string, unknown> = {}
    for (const a of mosaic.settings.schema) {
      if (a.type === 'Geometry') continue
      const v = g.attrs[a.name]
      if (v === undefined) continue
      properties[a.name] = v !== null && a.type === 'Date' ? jsonDate(String(v)) : v
    }
    // Only a granule a render could not decode has it: why (GeoServer's index has no such state).
    if (g.damage !== undefined) properties.damage = g.damage
    const r = ring(g.bbox)
    return {
      type: 'Feature',
      id: `${mosaic.typeName}.${g.seq}`,
      geometry: multi ? { type: 'MultiPolygon', coordinates: [[r]] } : { type: 'Polygon', coordinates: [r] },
      properties
    }
  })
  const doc: Record<string, unknown> = { type: 'FeatureCollection', features }
  if (mosaic.crs) doc.crs = { type: 'name', properties: { name: `EPSG:${epsgNumber(mosaic.crs)}` } }
  if (granules.length) doc.bbox = envelope(granules)
  return JSON.stringify(doc)
}
