// GetFeatureInfo answers for raster layers, as GeoServer writes them: one feature per queried layer
// whose properties are the coverage's bands (GRAY_INDEX, RED_BAND...) and the values under the
// pixel; no feature where no granule has data. text/plain (GeoServer's TextFeatureInfoOutputFormat),
// application/json (GeoJSON), GML 2 (application/vnd.ogc.gml, text/xml).
import type { LayerInfo } from '../catalog/layers.js'
import type { Feature } from '../vector/source.js'
import { escapeXml } from '../xml-escape.js'

export interface LayerValues {
  layer: LayerInfo
  bandNames: string[]
  /** Absent: no data under the point. */
  values?: number[]
  /** A vector layer's features under the point (GeoJSON geometries in `dataCrs`). */
  features?: Feature[]
  dataCrs?: string
}

/** A feature's id as GeoServer writes it: <type>.<primary key>, or <type>.<n> without one. */
const fid = (r: LayerValues, f: Feature, n: number) => `${r.layer.name}.${f.id ?? n + 1}`
const shown = (v: unknown): string => v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v)
const jsonValue = (v: unknown): unknown => v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? String(v) : v
const geometryOf = (f: Feature): { type: string, coordinates?: unknown } | null => typeof f.geometry === 'string' ? JSON.parse(f.geometry) : null
/** Points of a GeoJSON geometry, for the text format's "[GEOMETRY (Polygon) with 5 points]". */
function pointCount (c: unknown): number {
  if (!Array.isArray(c)) return 0
  if (typeof c[0] === 'number') return 1
  return c.reduce((n: number, x) => n + pointCount(x), 0)
}
const urn = (crs: string) => /^EPSG:(\d+)$/.test(crs) ? `urn:ogc:def:crs:EPSG::${crs.slice(5)}` : crs

/** The vector layers' part of each format. */
function vectorJson (results: LayerValues[]): unknown[] {
  return results.flatMap((r) => (r.features ?? []).map((f, n) => ({
    type: 'Feature',
    id: fid(r, f, n),
    geometry: geometryOf(f),
    properties: Object.fromEntries(Object.entries(f.properties).map(([k, v]) => [k, jsonValue(v)]))
  })))
}

const x = (s: string) => escapeXml(s)
/** XML element names may not start with a digit or hold most punctuation. */
const xmlName = (s: string) => /^[A-Za-z_][\w.-]*$/.test(s) ? s : `_${s.replace(/[^\w.-]/g, '_')}`
const value = (v: number) => Number.isFinite(v) ? String(v) : 'NaN'

export function featureInfo (results: LayerValues[], format: string): { body: string, contentType: string } {
  if (format === 'application/json') {
    const features = [...vectorJson(results), ...results.filter((r) => r.values).map((r) => ({
      type: 'Feature',
      id: '',
      geometry: null,
      properties: Object.fromEntries(r.bandNames.map((b, i) => [b, Number.isFinite(r.values![i]) ? r.values![i] : null]))
    }))]
    const crs = results.find((r) => r.features?.length)?.dataCrs
    const doc = { type: 'FeatureCollection', features, totalFeatures: 'unknown', numberReturned: features.length, timeStamp: new Date().toISOString(), crs: crs ? { type: 'name', properties: { name: urn(crs) } } : null }
    return { body: JSON.stringify(doc), contentType: 'application/json' }
  }
  if (format === 'application/vnd.ogc.gml' || format === 'text/xml') {
    const nsDecl = [...new Set(results.map((r) => r.layer.workspace))].map((ws) => ` xmlns:${xmlName(ws)}="http://${x(encodeURIComponent(ws))}"`).join('')
    const out = ['<?xml version="1.0" encoding="UTF-8"?>',
      `<wfs:FeatureCollection xmlns="http://www.opengis.net/wfs" xmlns:wfs="http://www.opengis.net/wfs" xmlns:gml="http://www.opengis.net/gml"${nsDecl}>`,
      '  <gml:boundedBy><gml:null>unknown</gml:null></gml:boundedBy>']
    for (const r of results) {
      const el = `${xmlName(r.layer.workspace)}:${xmlName(r.layer.name)}`
      for (const [n, f] of (r.features ?? []).entries()) {
        out.push('  <gml:featureMember>', `    <${el} fid="${x(fid(r, f, n))}">`)
        for (const [k, v] of Object.entries(f.properties)) if (v !== null && v !== undefined) out.push(`      <${xmlName(r.layer.workspace)}:${xmlName(k)}>${x(shown(v))}</${xmlName(r.layer.workspace)}:${xmlName(k)}>`)
        out.push(`    </${el}>`, '  </gml:featureMember>')
      }
      if (!r.values) continue
      out.push('  <gml:featureMember>', `    <${el}>`)
      r.bandNames.forEach((b, i) => out.push(`      <${xmlName(r.layer.workspace)}:${xmlName(b)}>${value(r.values![i])}</${xmlName(r.layer.workspace)}:${xmlName(b)}>`))
      out.push(`    </${el}>`, '  </gml:featureMember>')
    }
    out.push('</wfs:FeatureCollection>')
    return { body: out.join('\n'), contentType: format === 'text/xml' ? 'text/xml; subtype=gml/2.1.2' : 'application/vnd.ogc.gml' }
  }
  if (format === 'text/html') return { body: html(results), contentType: 'text/html; charset=utf-8' }
  const out: string[] = []
  for (const r of results) {
    if (r.features?.length) {
      out.push(`Results for FeatureType '${r.layer.qualifiedName}':`)
      for (const f of r.features) {
        out.push('--------------------------------------------')
        for (const [k, v] of Object.entries(f.properties)) out.push(`${k} = ${shown(v)}`)
        const g = geometryOf(f)
        if (g) out.push(`geometry = [GEOMETRY (${g.type}) with ${pointCount(g.coordinates)} points]`)
      }
      out.push('--------------------------------------------')
    }
    if (!r.values) continue
    out.push(`Results for FeatureType '${r.layer.qualifiedName}':`, '--------------------------------------------')
    r.bandNames.forEach((b, i) => out.push(`${b} = ${value(r.values![i])}`))
    out.push('--------------------------------------------')
  }
  if (out.length === 0) out.push('no features were found')
  return { body: out.join('\n') + '\n', contentType: 'text/plain; charset=utf-8' }
}

/** GeoServer's HTML template: one table per layer, a row per feature (fid and attributes). */
function html (results: LayerValues[]): string {
  const out = ['<html><head><title>Geoserver GetFeatureInfo output</title></head>',
    '<style type="text/css">table.featureInfo, table.featureInfo td, table.featureInfo th { border:1px solid #ddd; border-collapse:collapse; margin:0; padding:0; font-size: 90%; padding:.2em .1em; } table.featureInfo th { padding:.2em .2em; font-weight:bold; background:#eee; } table.featureInfo td { background:#fff; } table.featureInfo tr.odd td { background:#eee; } table.featureInfo caption { text-align:left; font-size:100%; font-weight:bold; padding:.2em .2em; }</style>',
    '<body>']
  for (const r of results) {
    const rows: string[][] = []
    let head: string[] = []
    if (r.features?.length) {
      head = ['fid', ...Object.keys(r.features[0].properties)]
      r.features.forEach((f, n) => rows.push([fid(r, f, n), ...head.slice(1).map((k) => shown(f.properties[k]))]))
    } else if (r.values) {
      head = r.bandNames
      rows.push(r.values.map(value))
    }
    if (rows.length === 0) continue
    out.push('<table class="featureInfo">', `  <caption class="featureInfo">${x(r.layer.name)}</caption>`, `  <tr>${head.map((h) => `<th>${x(h)}</th>`).join('')}</tr>`)
    rows.forEach((row, i) => out.push(`  <tr${i % 2 === 1 ? ' class="odd"' : ''}>${row.map((c) => `<td>${x(c)}</td>`).join('')}</tr>`))
    out.push('</table>', '<br/>')
  }
  out.push('</body>', '</html>')
  return out.join('\n') + '\n'
}
