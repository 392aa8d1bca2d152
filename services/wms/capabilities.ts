// The WMS service metadata documents: WMS_Capabilities 1.3.0 (capabilities_1_3_0.xsd, element
// order as the schema's sequences) and WMT_MS_Capabilities 1.1.1 (WMS_MS_Capabilities.dtd), as
// GeoServer writes them: one root layer without a name holding a named, queryable layer per
// published mosaic, each with its CRSs and a BoundingBox in each, its styles (the default first),
// and the TIME and ELEVATION dimensions with their values.
import { isNorthingFirst, transformBbox } from '../render/crs.js'
import { epsgCodes } from '../render/epsg.js'
import { MAP_FORMATS, type WmsVersion } from './request.js'
import { escapeXml } from '../xml-escape.js'
import type { LayerAttribution } from '../catalog/layers.js'

/** The Service section: title, abstract, keywords, fees and constraints from the service settings;
 *  `onlineResource` when set stands for the service URL in Service/OnlineResource (as GeoServer's). */
export interface ServiceDescription {
  title: string
  abstract?: string
  keywords: string[]
  onlineResource?: string
  fees?: string
  accessConstraints?: string
}

export interface WmsLayerDescription {
  /** Undefined for a CONTAINER layer group, which has a title only. */
  name?: string
  title: string
  abstract?: string
  keywords: string[]
  /** Lon/lat bounds. */
  bbox: [number, number, number, number]
  /** The layer's own CRS when it is not one of the service-wide ones. */
  nativeCrs?: string
  /** Style names, the default first. */
  styles: string[]
  time?: { values: string[], default?: string }
  elevation?: { values: number[], default?: number }
  /** Who provides the layer (GeoServer's AttributionInfo): an <Attribution> element. */
  attribution?: LayerAttribution
  /** A layer group (GetFeatureInfo queries its layers); `name` undefined for a CONTAINER group (a title only). */
  group?: boolean
  /** The layers nested under a group (NAMED, CONTAINER and EO groups). */
  children?: WmsLayerDescription[]
}

export interface CapabilitiesOptions {
  version: WmsVersion
  /** The URL clients send requests to (…/wms?). */
  onlineResource: string
  maxSize: number
  /** What the service settings say of the service (services/settings/service-settings.ts). */
  service: ServiceDescription
  updateSequence?: number
  /** The settings' limited SRS list, as EPSG:<n> codes; empty or absent: every code of the registry. */
  srs?: string[]
  /** With a limited list: a BoundingBox in each of its CRSs for the root and every layer. */
  bboxForEachCRS?: boolean
}

export const INFO_FORMATS = ['text/plain', 'application/vnd.ogc.gml', 'text/xml', 'application/json', 'text/html']
const EXCEPTIONS: Record<WmsVersion, string[]> = {
  '1.3.0': ['XML', 'INIMAGE', 'BLANK'],
  '1.1.1': ['application/vnd.ogc.se_xml', 'application/vnd.ogc.se_inimage', 'application/vnd.ogc.se_blank']
}
export const CAPABILITIES_TYPES: Record<WmsVersion, string> = { '1.3.0': 'text/xml', '1.1.1': 'application/vnd.ogc.wms_xml' }
/** CRSs every layer gets a BoundingBox in (every code of the root layer's list is accepted in GetMap). */
const SERVICE_CRS = ['EPSG:4326', 'EPSG:3857', 'EPSG:900913']

const x = (s: string) => escapeXml(s)
const num = (n: number) => String(Math.round(n * 1e9) / 1e9)

function crsBox (b: [number, number, number, number], crs: string): [number, number, number, number] | undefined {
  if (crs === 'EPSG:4326') return b
  try {
    const t = transformBbox(b, 'EPSG:4326', crs === 'EPSG:900913' ? 'EPSG:3857' : crs)
    return t.every(Number.isFinite) ? t : undefined
  } catch { return undefined }
}

function union (layers: WmsLayerDescription[]): [number, number, number, number] {
  if (layers.length === 0) return [-180, -90, 180, 90]
  return layers.reduce<[number, number, number, number]>((u, l) =>
    [Math.min(u[0], l.bbox[0]), Math.min(u[1], l.bbox[1]), Math.max(u[2], l.bbox[2]), Math.max(u[3], l.bbox[3])], [Infinity, Infinity, -Infinity, -Infinity])
}

function clampGeo (b: [number, number, number, number]): [number, number, number, number] {
  const c = (v: number, m: number) => Math.max(-m, Math.min(m, v))
  return [c(b[0], 180), c(b[1], 90), c(b[2], 180), c(b[3], 90)]
}

let rootLists: Record<string, string[]> | undefined
/**
 * The root layer's CRS list as GeoServer writes it without a limited SRS list: every EPSG code it
 * knows, after a comment saying so. CRS:84 (1.3.0) and the service-wide codes stay first, as before,
 * then the rest of the registry in numeric order. Built once: the registry does not change while the
 * process runs.
 */
function rootCrsList (tag: string, v13: boolean): string[] {
  rootLists ??= {}
  const key = v13 ? '1.3.0' : '1.1.1'
  const first = v13 ? ['CRS:84', ...SERVICE_CRS] : SERVICE_CRS
  rootLists[key] ??= [...first.map((c) => `      <${tag}>${c}</${tag}>`), '      <!--All supported EPSG projections:-->',
    ...epsgCodes().map((c) => `EPSG:${c}`).filter((c) => !first.includes(c)).map((c) => `      <${tag}>${c}</${tag}>`)]
  return rootLists[key]
}

/** A limited list as GeoServer writes it: a comment, its codes, then CRS:84 (1.3.0). */
function limitedCrsList (tag: string, v13: boolean, codes: string[]): string[] {
  return ['      <!--Limited list of EPSG projections:-->', ...[...codes, ...(v13 ? ['CRS:84'] : [])].map((c) => `      <${tag}>${c}</${tag}>`)]
}

export function wmsCapabilities (layers: WmsLayerDescription[], o: CapabilitiesOptions): string {
  const v13 = o.version === '1.3.0'
  const crsTag = v13 ? 'CRS' : 'SRS'
  const limited = o.srs ?? []
  const eachCrs = o.bboxForEachCRS === true ? limited : []
  const boxCrs = (own: string[]) => [...new Set([...SERVICE_CRS, ...own, ...eachCrs])]
  const href = x(o.onlineResource)
  const out: string[] = []
  // 1.1.1 declares xlink on every OnlineResource (the DTD fixes it there), as GeoServer writes it.
  const xl = v13 ? '' : ' xmlns:xlink="http://www.w3.org/1999/xlink"'
  const dcp = (post: boolean) => [
    '        <DCPType>', '          <HTTP>',
    `            <Get><OnlineResource${xl} xlink:type="simple" xlink:href="${href}"/></Get>`,
    ...(post ? [`            <Post><OnlineResource${xl} xlink:type="simple" xlink:href="${href}"/></Post>`] : []),
    '          </HTTP>', '        </DCPType>']
  const op = (name: string, formats: string[]) => [`      <${name}>`, ...formats.map((f) => `        <Format>${x(f)}</Format>`), ...dcp(true), `      </${name}>`]
  const s = o.service
  const title = s.title
  if (v13) {
    out.push('<?xml version="1.0" encoding="UTF-8"?>',
      `<WMS_Capabilities version="1.3.0" updateSequence="${o.updateSequence ?? 0}" xmlns="http://www.opengis.net/wms" xmlns:xlink="http://www.w3.org/1999/xlink" ` +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.opengis.net/wms http://schemas.opengis.net/wms/1.3.0/capabilities_1_3_0.xsd">')
  } else {
    out.push('<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
      '<!DOCTYPE WMT_MS_Capabilities SYSTEM "http://schemas.opengis.net/wms/1.1.1/WMS_MS_Capabilities.dtd">',
      `<WMT_MS_Capabilities version="1.1.1" updateSequence="${o.updateSequence ?? 0}">`)
  }
  out.push('  <Service>', `    <Name>${v13 ? 'WMS' : 'OGC:WMS'}</Name>`, `    <Title>${x(title)}</Title>`)
  if (s.abstract !== undefined) out.push(`    <Abstract>${x(s.abstract)}</Abstract>`)
  if (s.keywords.length > 0) out.push('    <KeywordList>', ...s.keywords.map((k) => `      <Keyword>${x(k)}</Keyword>`), '    </KeywordList>')
  out.push(`    <OnlineResource${xl} xlink:type="simple" xlink:href="${s.onlineResource !== undefined ? x(s.onlineResource) : href}"/>`)
  if (s.fees !== undefined) out.push(`    <Fees>${x(s.fees)}</Fees>`)
  if (s.accessConstraints !== undefined) out.push(`    <AccessConstraints>${x(s.accessConstraints)}</AccessConstraints>`)
  if (v13) out.push(`    <MaxWidth>${o.maxSize}</MaxWidth>`, `    <MaxHeight>${o.maxSize}</MaxHeight>`)
  out.push('  </Service>', '  <Capability>', '    <Request>',
    ...op('GetCapabilities', [CAPABILITIES_TYPES[o.version]]),
    ...op('GetMap', MAP_FORMATS),
    ...op('GetFeatureInfo', INFO_FORMATS),
    '    </Request>', '    <Exception>', ...EXCEPTIONS[o.version].map((f) => `      <Format>${f}</Format>`), '    </Exception>')
  if (!v13) out.push('    <UserDefinedSymbolization SupportSLD="1" UserLayer="0" UserStyle="1" RemoteWFS="0"/>')

  const bboxes = (b: [number, number, number, number], crss: string[], indent: string) => {
    const lines: string[] = []
    for (const crs of crss) {
      const t = crsBox(b, crs)
      if (!t) continue
      // 1.3.0: EPSG's axis order (EPSG:4326 latitude first, EPSG:3035 northing first), in
      // BoundingBox as in BBOX, as GeoServer writes it.
      const [a0, a1, a2, a3] = v13 && isNorthingFirst(crs) ? [t[1], t[0], t[3], t[2]] : t
      lines.push(`${indent}<BoundingBox ${crsTag}="${crs}" minx="${num(a0)}" miny="${num(a1)}" maxx="${num(a2)}" maxy="${num(a3)}"/>`)
    }
    return lines
  }
  const geo = (b: [number, number, number, number], indent: string) => {
    const g = clampGeo(b)
    if (!v13) return [`${indent}<LatLonBoundingBox minx="${num(g[0])}" miny="${num(g[1])}" maxx="${num(g[2])}" maxy="${num(g[3])}"/>`]
    return [`${indent}<EX_GeographicBoundingBox>`, `${indent}  <westBoundLongitude>${num(g[0])}</westBoundLongitude>`,
      `${indent}  <eastBoundLongitude>${num(g[2])}</eastBoundLongitude>`, `${indent}  <southBoundLatitude>${num(g[1])}</southBoundLatitude>`,
      `${indent}  <northBoundLatitude>${num(g[3])}</northBoundLatitude>`, `${indent}</EX_GeographicBoundingBox>`]
  }

  const all = union(layers)
  out.push('    <Layer>', `      <Title>${x(title)}</Title>`, '      <Abstract>The layers of this service.</Abstract>',
    ...(limited.length ? limitedCrsList(crsTag, v13, limited) : rootCrsList(crsTag, v13)), ...geo(all, '      '), ...bboxes(all, boxCrs([]), '      '))
  const layer = (l: WmsLayerDescription & { name?: string }, ind: string) => {
    const in2 = ind + '  '
    const in4 = in2 + '  '
    const own = l.nativeCrs && !SERVICE_CRS.includes(l.nativeCrs) ? [l.nativeCrs] : []
    out.push(`${ind}<Layer queryable="1" opaque="0">`)
    if (l.name !== undefined) out.push(`${in2}<Name>${x(l.name)}</Name>`)
    out.push(`${in2}<Title>${x(l.title)}</Title>`)
    if (l.abstract) out.push(`${in2}<Abstract>${x(l.abstract)}</Abstract>`)
    if (l.keywords.length) out.push(`${in2}<KeywordList>`, ...l.keywords.map((k) => `${in4}<Keyword>${x(k)}</Keyword>`), `${in2}</KeywordList>`)
    out.push(...own.map((c) => `${in2}<${crsTag}>${x(c)}</${crsTag}>`), ...geo(l.bbox, in2), ...bboxes(l.bbox, boxCrs(own), in2))
    const dims: Array<[string, string, string, string[], string | undefined]> = []
    if (l.time) dims.push(['time', 'ISO8601', '', l.time.values, l.time.default])
    if (l.elevation) dims.push(['elevation', 'EPSG:5030', 'm', l.elevation.values.map(String), l.elevation.default === undefined ? undefined : String(l.elevation.default)])
    for (const [name, units, symbol, values, def] of dims) {
      const d = def === undefined ? '' : ` default="${x(def)}"`
      if (v13) {
        out.push(`${in2}<Dimension name="${name}" units="${units}"${symbol ? ` unitSymbol="${symbol}"` : ''}${d}>${x(values.join(','))}</Dimension>`)
      } else out.push(`${in2}<Dimension name="${name}" units="${units}"${symbol ? ` unitSymbol="${symbol}"` : ''}/>`)
    }
    if (!v13) for (const [name, , , values, def] of dims) out.push(`${in2}<Extent name="${name}"${def === undefined ? '' : ` default="${x(def)}"`}>${x(values.join(','))}</Extent>`)
    // After the dimensions, before the styles (the 1.1.1 DTD's and the 1.3.0 schema's order), as
    // GeoServer's capabilities transformers write it: each part only when set.
    const a = l.attribution
    if (a && (a.title !== undefined || a.href !== undefined || a.logoURL !== undefined)) {
      out.push(`${in2}<Attribution>`)
      if (a.title !== undefined) out.push(`${in4}<Title>${x(a.title)}</Title>`)
      if (a.href !== undefined) out.push(`${in4}<OnlineResource${xl} xlink:type="simple" xlink:href="${x(a.href)}"/>`)
      if (a.logoURL !== undefined) {
        out.push(`${in4}<LogoURL width="${a.logoWidth ?? 0}" height="${a.logoHeight ?? 0}">`)
        if (a.logoType !== undefined) out.push(`${in4}  <Format>${x(a.logoType)}</Format>`)
        out.push(`${in4}  <OnlineResource${xl} xlink:type="simple" xlink:href="${x(a.logoURL)}"/>`, `${in4}</LogoURL>`)
      }
      out.push(`${in2}</Attribution>`)
    }
    for (const st of l.styles) {
      out.push(`${in2}<Style>`, `${in4}<Name>${x(st)}</Name>`, `${in4}<Title>${x(st)}</Title>`, `${in2}</Style>`)
    }
    for (const c of l.children ?? []) layer(c, in2)
    out.push(`${ind}</Layer>`)
  }
  for (const l of layers) layer(l, '      ')
  out.push('    </Layer>', '  </Capability>', v13 ? '</WMS_Capabilities>' : '</WMT_MS_Capabilities>')
  return out.join('\n')
}
