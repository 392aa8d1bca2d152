// GetFeatureInfo answers for raster layers, as GeoServer writes them: one feature per queried layer
// whose properties are the coverage's bands (GRAY_INDEX, RED_BAND...) and the values under the
// pixel; no feature where no granule has data. text/plain (GeoServer's TextFeatureInfoOutputFormat),
// application/json (GeoJSON), GML 2 (application/vnd.ogc.gml, text/xml).
import type { LayerInfo } from '../catalog/layers.js'

export interface LayerValues {
  layer: LayerInfo
  bandNames: string[]
  /** Absent: no data under the point. */
  values?: number[]
}

const x = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
/** XML element names may not start with a digit or hold most punctuation. */
const xmlName = (s: string) => /^[A-Za-z_][\w.-]*$/.test(s) ? s : `_${s.replace(/[^\w.-]/g, '_')}`
const value = (v: number) => Number.isFinite(v) ? String(v) : 'NaN'

export function featureInfo (results: LayerValues[], format: string): { body: string, contentType: string } {
  if (format === 'application/json') {
    const features = results.filter((r) => r.values).map((r) => ({
      type: 'Feature',
      id: '',
      geometry: null,
      properties: Object.fromEntries(r.bandNames.map((b, i) => [b, Number.isFinite(r.values![i]) ? r.values![i] : null]))
    }))
    const doc = { type: 'FeatureCollection', features, totalFeatures: 'unknown', numberReturned: features.length, timeStamp: new Date().toISOString(), crs: null }
    return { body: JSON.stringify(doc), contentType: 'application/json' }
  }
  if (format === 'application/vnd.ogc.gml' || format === 'text/xml') {
    const nsDecl = [...new Set(results.map((r) => r.layer.workspace))].map((ws) => ` xmlns:${xmlName(ws)}="http://${x(encodeURIComponent(ws))}"`).join('')
    const out = ['<?xml version="1.0" encoding="UTF-8"?>',
      `<wfs:FeatureCollection xmlns="http://www.opengis.net/wfs" xmlns:wfs="http://www.opengis.net/wfs" xmlns:gml="http://www.opengis.net/gml"${nsDecl}>`,
      '  <gml:boundedBy><gml:null>unknown</gml:null></gml:boundedBy>']
    for (const r of results) {
      if (!r.values) continue
      const el = `${xmlName(r.layer.workspace)}:${xmlName(r.layer.name)}`
      out.push('  <gml:featureMember>', `    <${el}>`)
      r.bandNames.forEach((b, i) => out.push(`      <${xmlName(r.layer.workspace)}:${xmlName(b)}>${value(r.values![i])}</${xmlName(r.layer.workspace)}:${xmlName(b)}>`))
      out.push(`    </${el}>`, '  </gml:featureMember>')
    }
    out.push('</wfs:FeatureCollection>')
    return { body: out.join('\n'), contentType: format === 'text/xml' ? 'text/xml; subtype=gml/2.1.2' : 'application/vnd.ogc.gml' }
  }
  const out: string[] = []
  for (const r of results) {
    if (!r.values) continue
    out.push(`Results for FeatureType '${r.layer.qualifiedName}':`, '--------------------------------------------')
    r.bandNames.forEach((b, i) => out.push(`${b} = ${value(r.values![i])}`))
    out.push('--------------------------------------------')
  }
  if (out.length === 0) out.push('no features were found')
  return { body: out.join('\n') + '\n', contentType: 'text/plain; charset=utf-8' }
}
