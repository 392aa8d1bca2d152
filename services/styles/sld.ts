// SLD documents: parsed safely (no DTD or entities, bounded depth: services/files/xml.ts), checked
// against the structure of SLD 1.0.0 and SE 1.1.0 (StyledLayerDescriptor > NamedLayer|UserLayer >
// UserStyle > FeatureTypeStyle|CoverageStyle > Rule > symbolizers), and the RasterSymbolizer
// compiled into the RasterStyle the render workers apply. Namespace prefixes are dropped after the
// root namespace is checked, so sld:, se: and default-namespace documents read the same.
import { parseXml, type XmlObject, type XmlValue } from '../files/xml.js'
import { attr, children, elementNames, localName as local, text } from '../files/xml-nodes.js'
import type { RasterStyle } from '../render/render-types.js'
import { InvalidStyle } from '../errors.js'

export const SLD_NS = 'http://www.opengis.net/sld'
export const SE_NS = 'http://www.opengis.net/se'

export interface ParsedSld {
  /** '1.0.0' (SLD) or '1.1.0' (SLD 1.1 / SE). */
  version: string
  /** Name of the first UserStyle, if it has one (GeoServer names an uploaded style after it). */
  styleName?: string
  root: XmlObject
}

type Node = XmlObject

/** Drops namespace prefixes from element and attribute names; xmlns attributes are dropped. */
function strip (v: XmlValue): XmlValue {
  if (typeof v === 'string') return v
  if (Array.isArray(v)) return v.map(strip)
  const out: XmlObject = {}
  for (const [k, c] of Object.entries(v)) {
    if (k === '$') {
      const attrs: Record<string, string> = {}
      for (const [a, val] of Object.entries(c as Record<string, string>)) {
        if (a === 'xmlns' || a.startsWith('xmlns:')) continue
        attrs[local(a)] = val
      }
      out.$ = attrs as unknown as XmlValue
    } else {
      const name = k === '_' ? k : local(k)
      const value = strip(c)
      // The same local name under two prefixes (rare) merges into one list.
      out[name] = name in out ? ([] as XmlValue[]).concat(out[name], value) : value
    }
  }
  return out
}

const COMMON = ['Name', 'Title', 'Abstract', 'Description']
const SYMBOLIZERS = ['PointSymbolizer', 'LineSymbolizer', 'PolygonSymbolizer', 'TextSymbolizer', 'RasterSymbolizer']
const RULE_CHILDREN = [...COMMON, 'LegendGraphic', 'Filter', 'ElseFilter', 'MinScaleDenominator', 'MaxScaleDenominator', 'VendorOption', ...SYMBOLIZERS]

function only (node: XmlValue, allowed: string[], where: string): void {
  for (const k of elementNames(node)) if (!allowed.includes(k)) throw InvalidStyle(`unexpected element ${k} in ${where}`)
}

function num (v: string | undefined, what: string, min = -Infinity, max = Infinity): number {
  const n = Number(v?.trim())
  if (v === undefined || v.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw InvalidStyle(`${what} must be a number${Number.isFinite(min) ? ` from ${min}` : ''}${Number.isFinite(max) ? ` to ${max}` : ''}, found ${JSON.stringify(v ?? '')}`)
  }
  return n
}

function color (v: string | undefined, what: string): [number, number, number] {
  const m = /^\s*#?([0-9a-f]{6})\s*$/i.exec(v ?? '')
  if (!m) throw InvalidStyle(`${what} must be a colour #RRGGBB, found ${JSON.stringify(v ?? '')}`)
  const n = parseInt(m[1], 16)
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255]
}

/**
 * Parses and validates an SLD document. Throws MW_CORE_DOCTYPE_NOT_ALLOWED / MALFORMED_XML for
 * unsafe or broken XML and MW_STYLES_INVALID for a document that is not an SLD.
 */
export async function parseSld (sld: string): Promise<ParsedSld> {
  const parsed = await parseXml(sld)
  const rootKey = Object.keys(parsed)[0]
  if (local(rootKey) !== 'StyledLayerDescriptor') throw InvalidStyle(`the root element must be StyledLayerDescriptor, found ${rootKey}`)
  const rawRoot = parsed[rootKey]
  const prefix = rootKey.includes(':') ? rootKey.slice(0, rootKey.indexOf(':')) : ''
  const rootAttrs = (typeof rawRoot === 'object' && !Array.isArray(rawRoot) ? rawRoot.$ : undefined) as unknown as Record<string, string> | undefined
  const ns = rootAttrs?.[prefix ? `xmlns:${prefix}` : 'xmlns']
  if (ns !== SLD_NS) throw InvalidStyle(`StyledLayerDescriptor must be in the namespace ${SLD_NS}, found ${ns === undefined ? 'none' : JSON.stringify(ns)}`)
  const root = strip(rawRoot) as Node
  if (typeof root !== 'object') throw InvalidStyle('StyledLayerDescriptor is empty')
  const version = attr(root, 'version') ?? '1.0.0'
  if (version !== '1.0.0' && version !== '1.1.0') throw InvalidStyle(`unsupported SLD version ${JSON.stringify(version)}: 1.0.0 or 1.1.0 expected`)

  only(root, [...COMMON, 'NamedLayer', 'UserLayer'], 'StyledLayerDescriptor')
  const layers = [...children(root, 'NamedLayer'), ...children(root, 'UserLayer')]
  if (layers.length === 0) throw InvalidStyle('StyledLayerDescriptor has no NamedLayer or UserLayer')
  let styleName: string | undefined
  for (const layer of layers) {
    only(layer, [...COMMON, 'LayerFeatureConstraints', 'LayerCoverageConstraints', 'InlineFeature', 'RemoteOWS', 'UserStyle', 'NamedStyle'], 'NamedLayer')
    const userStyles = children(layer, 'UserStyle')
    if (userStyles.length === 0 && children(layer, 'NamedStyle').length === 0) throw InvalidStyle('a layer of the SLD has no UserStyle or NamedStyle')
    for (const us of userStyles) {
      only(us, [...COMMON, 'IsDefault', 'FeatureTypeStyle', 'CoverageStyle', 'OnlineResource'], 'UserStyle')
      styleName ??= text(children(us, 'Name')[0])?.trim() || undefined
      const ftss = [...children(us, 'FeatureTypeStyle'), ...children(us, 'CoverageStyle')]
      if (ftss.length === 0) throw InvalidStyle('UserStyle has no FeatureTypeStyle')
      for (const fts of ftss) {
        only(fts, [...COMMON, 'FeatureTypeName', 'CoverageName', 'SemanticTypeIdentifier', 'Rule', 'OnlineResource', 'Transformation', 'VendorOption'], 'FeatureTypeStyle')
        const rules = children(fts, 'Rule')
        if (rules.length === 0) throw InvalidStyle('FeatureTypeStyle has no Rule')
        for (const rule of rules) {
          only(rule, RULE_CHILDREN, 'Rule')
          if (!SYMBOLIZERS.some((s) => children(rule, s).length > 0)) throw InvalidStyle('Rule has no symbolizer')
          for (const rs of children(rule, 'RasterSymbolizer')) compileRasterSymbolizer(rs)
        }
      }
    }
  }
  return { version, styleName, root }
}

/** The RasterSymbolizer that applies to a coverage: the default UserStyle's first one. */
export function rasterStyleOf (sld: ParsedSld): RasterStyle | undefined {
  const userStyles = [...children(sld.root, 'NamedLayer'), ...children(sld.root, 'UserLayer')].flatMap((l) => children(l, 'UserStyle'))
  const isDefault = (us: XmlValue) => /^(1|true)$/i.test(text(children(us, 'IsDefault')[0])?.trim() ?? '')
  const ordered = [...userStyles.filter(isDefault), ...userStyles.filter((us) => !isDefault(us))]
  for (const us of ordered) {
    for (const fts of [...children(us, 'FeatureTypeStyle'), ...children(us, 'CoverageStyle')]) {
      for (const rule of children(fts, 'Rule')) {
        const rs = children(rule, 'RasterSymbolizer')[0]
        if (rs !== undefined) return compileRasterSymbolizer(rs)
      }
    }
  }
  return undefined
}

function contrastOf (ce: XmlValue, where: string): RasterStyle['contrast'] {
  only(ce, ['Normalize', 'Histogram', 'Logarithmic', 'Exponential', 'GammaValue'], where)
  const out: NonNullable<RasterStyle['contrast']> = {}
  if (children(ce, 'Normalize').length > 0) out.method = 'normalize'
  else if (children(ce, 'Histogram').length > 0) out.method = 'histogram'
  const gamma = children(ce, 'GammaValue')[0]
  if (gamma !== undefined) out.gamma = num(text(gamma), 'GammaValue', 0.01, 100)
  return out
}

function channel (node: XmlValue, where: string): { band?: number, name?: string, contrast?: RasterStyle['contrast'] } {
  only(node, ['SourceChannelName', 'ContrastEnhancement'], where)
  const raw = text(children(node, 'SourceChannelName')[0])
  const ce = children(node, 'ContrastEnhancement')[0]
  const contrast = ce === undefined ? undefined : contrastOf(ce, `${where} ContrastEnhancement`)
  // A number is a 1-based band index; other text names a band (GeoTools matches it against the
  // coverage's band names, which a coverage PUT may change), resolved when a layer is rendered.
  const t = raw?.trim() ?? ''
  if (t !== '' && !Number.isFinite(Number(t))) {
    if (t.length > 256 || /[\u0000-\u001f]/.test(t)) throw InvalidStyle(`${where} SourceChannelName must be a band number from 1 or a band name`)
    return { name: t, contrast }
  }
  const band = num(raw, `${where} SourceChannelName`, 1, 65535)
  if (!Number.isInteger(band)) throw InvalidStyle(`${where} SourceChannelName must be a band number from 1, found ${band}`)
  return { band, contrast }
}

/** Sets one selected channel as a band index or a band name. */
function select (style: RasterStyle, key: 'gray' | 'red' | 'green' | 'blue', c: { band?: number, name?: string }): void {
  if (c.name !== undefined) style.channelNames = { ...style.channelNames, [key]: c.name }
  else style.channels = { ...style.channels, [key]: c.band }
}

function colorMapOf (cm: XmlValue): RasterStyle['colorMap'] {
  only(cm, ['ColorMapEntry', 'Interpolate', 'Categorize'], 'ColorMap')
  const type = (attr(cm, 'type') ?? 'ramp').toLowerCase()
  if (type !== 'ramp' && type !== 'intervals' && type !== 'values') throw InvalidStyle(`ColorMap type must be ramp, intervals or values, found ${JSON.stringify(attr(cm, 'type'))}`)
  const entries: NonNullable<RasterStyle['colorMap']>['entries'] = []
  for (const e of children(cm, 'ColorMapEntry')) {
    const label = attr(e, 'label')
    entries.push({
      quantity: num(attr(e, 'quantity'), 'ColorMapEntry quantity'),
      color: color(attr(e, 'color'), 'ColorMapEntry color'),
      opacity: attr(e, 'opacity') === undefined ? 1 : num(attr(e, 'opacity'), 'ColorMapEntry opacity', 0, 1),
      ...(label !== undefined ? { label } : {})
    })
  }
  // SE 1.1 writes the ColorMap as a function: Interpolate is a ramp, Categorize are intervals.
  const interpolate = children(cm, 'Interpolate')[0]
  if (interpolate !== undefined) {
    for (const p of children(interpolate, 'InterpolationPoint')) {
      entries.push({ quantity: num(text(children(p, 'Data')[0]), 'InterpolationPoint Data'), color: color(text(children(p, 'Value')[0]), 'InterpolationPoint Value'), opacity: 1 })
    }
    return { type: 'ramp', entries: entries.sort((a, b) => a.quantity - b.quantity) }
  }
  const categorize = children(cm, 'Categorize')[0]
  if (categorize !== undefined) {
    const values = children(categorize, 'Value').map((v) => color(text(v), 'Categorize Value'))
    const thresholds = children(categorize, 'Threshold').map((v) => num(text(v), 'Categorize Threshold'))
    if (values.length !== thresholds.length + 1) throw InvalidStyle('Categorize needs one more Value than Threshold')
    values.forEach((c, i) => entries.push({ quantity: i < thresholds.length ? thresholds[i] : Infinity, color: c, opacity: 1 }))
    return { type: 'intervals', entries }
  }
  if (entries.length === 0) throw InvalidStyle('ColorMap has no ColorMapEntry')
  return { type, entries: entries.sort((a, b) => a.quantity - b.quantity) }
}

/** Compiles one RasterSymbolizer; throws MW_STYLES_INVALID for values the renderer cannot use. */
export function compileRasterSymbolizer (rs: XmlValue): RasterStyle {
  only(rs, ['Name', 'Description', 'Geometry', 'Opacity', 'ChannelSelection', 'OverlapBehavior', 'ColorMap', 'ContrastEnhancement', 'ShadedRelief', 'ImageOutline', 'VendorOption'], 'RasterSymbolizer')
  const style: RasterStyle = {}
  const opacity = children(rs, 'Opacity')[0]
  if (opacity !== undefined) style.opacity = num(text(opacity), 'Opacity', 0, 1)
  const cs = children(rs, 'ChannelSelection')[0]
  let channelContrast: RasterStyle['contrast']
  if (cs !== undefined) {
    only(cs, ['RedChannel', 'GreenChannel', 'BlueChannel', 'GrayChannel'], 'ChannelSelection')
    const gray = children(cs, 'GrayChannel')[0]
    if (gray !== undefined) {
      const g = channel(gray, 'GrayChannel')
      select(style, 'gray', g)
      channelContrast = g.contrast
    } else {
      const r = children(cs, 'RedChannel')[0]
      const g = children(cs, 'GreenChannel')[0]
      const b = children(cs, 'BlueChannel')[0]
      if (r === undefined || g === undefined || b === undefined) throw InvalidStyle('ChannelSelection needs a GrayChannel or all of RedChannel, GreenChannel and BlueChannel')
      const [cr, cg, cb] = [channel(r, 'RedChannel'), channel(g, 'GreenChannel'), channel(b, 'BlueChannel')]
      select(style, 'red', cr)
      select(style, 'green', cg)
      select(style, 'blue', cb)
      channelContrast = cr.contrast ?? cg.contrast ?? cb.contrast
    }
  }
  const cm = children(rs, 'ColorMap')[0]
  if (cm !== undefined) style.colorMap = colorMapOf(cm)
  const ce = children(rs, 'ContrastEnhancement')[0]
  const contrast = ce !== undefined ? contrastOf(ce, 'ContrastEnhancement') : channelContrast
  if (contrast && (contrast.method !== undefined || contrast.gamma !== undefined)) style.contrast = contrast
  return style
}
