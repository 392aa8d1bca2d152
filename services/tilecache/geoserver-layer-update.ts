// A GeoServerLayer sent to GeoWebCache's REST (PUT or POST layers/<layer>.xml), applied to the settings
// mapwarden keeps: expireCache and expireClients go to the layer's tile settings (the same the layer
// resource writes), and gridSubsets (the grid sets the layer is cached in, each with its levels
// zoomStart-zoomStop and an extent in the grid set's CRS) too, and the administrator's parameter
// filters on CQL_FILTER, TIME and ELEVATION (string, regex, float, integer); every other field must say what
// mapwarden does (all the layer's formats, 4x4 metatiles, no gutter, STYLES' filter from the layer's styles, the one
// blob store unless blobStoreId names one of GWC's REST's file blob stores), and anything else is refused with a 400 naming the field, never dropped. Validated
// whole first.
import type { LayerInfo } from '../catalog/layers.js'
import { GwcLayerUnsupported } from '../errors.js'
import { maxZoom, type BBox } from './grid-sets.js'
import { geoServerLayerView, type GeoServerLayerView, type GridChoice } from './geoserver-layer.js'
import { FILTER_KINDS, FILTERABLE_KEYS, filterRegex, javaFloat, layerDimensions, virtualTableOf, type CaseNormalize, type FilterKind, type ParameterFilterSetting } from './parameters.js'
import { parseTileSettings, type GridSubsetSetting, type TileLayerSettings } from './layer-settings.js'

const SUBSET_FIELDS = ['gridSetName', 'zoomStart', 'zoomStop', 'extent', 'minCachedLevel', 'maxCachedLevel']

const FIELDS = ['id', 'enabled', 'name', 'mimeFormats', 'gridSubsets', 'metaWidthHeight', 'expireCache', 'expireClients', 'parameterFilters', 'gutter', 'blobStoreId']

const list = (v: unknown, item: string): unknown[] => {
  if (v === undefined || v === null || v === '') return []
  if (Array.isArray(v)) return v
  if (typeof v === 'object' && item in (v as object)) { const i = (v as Record<string, unknown>)[item]; return Array.isArray(i) ? i : [i] }
  return [v]
}
const str = (v: unknown) => typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v)

/** The tile settings a GeoServerLayer body asks for; throws GwcLayerUnsupported naming what mapwarden cannot apply. */
export function applyGeoServerLayer (layer: LayerInfo, body: Record<string, unknown>, current: TileLayerSettings, grids: GridChoice): TileLayerSettings {
  const name = layer.qualifiedName
  const refuse = (field: string, why: string) => GwcLayerUnsupported(field, why)
  const view = geoServerLayerView(layer, current, grids)
  for (const k of Object.keys(body)) if (!FIELDS.includes(k)) throw refuse(k, `not a field mapwarden keeps for a tile layer; its fields are ${FIELDS.join(', ')}`)
  if (body.name !== undefined && str(body.name) !== name) throw refuse('name', `${str(body.name)} is not ${name}: a tile layer is renamed with its layer`)
  if (body.id !== undefined && str(body.id) !== view.id) throw refuse('id', `${str(body.id)} is not ${view.id}`)
  if (body.enabled !== undefined && str(body.enabled) !== 'true') throw refuse('enabled', 'a tile layer is disabled with its layer (PUT rest/layers/<layer> with enabled false)')
  if (body.mimeFormats !== undefined) {
    const sent = list(body.mimeFormats, 'string').map(str)
    const same = sent.length === view.mimeFormats.length && view.mimeFormats.every((f) => sent.includes(f))
    if (!same) throw refuse('mimeFormats', `mapwarden serves every tile format a layer has (${view.mimeFormats.join(', ')}; application/vnd.mapbox-vector-tile for vector layers and layer groups); a list of its own per layer is not supported`)
  }
  const gridSubsets = body.gridSubsets !== undefined ? parseGridSubsets(body.gridSubsets, grids) : current.gridSubsets
  if (body.metaWidthHeight !== undefined) {
    const m = list(body.metaWidthHeight, 'int').map(str)
    if (m.length !== 2 || m.some((v, i) => Number(v) !== view.metaWidthHeight[i])) throw refuse('metaWidthHeight', `every metatile is ${view.metaWidthHeight.join('x')} tiles`)
  }
  if (body.gutter !== undefined && Number(str(body.gutter)) !== 0) throw refuse('gutter', 'metatiles are rendered without a gutter')
  // blobStoreId: absent keeps the store (as every field absent here), empty names the default one.
  let blobStoreId = current.blobStoreId
  if (body.blobStoreId !== undefined) {
    const id = body.blobStoreId === null ? '' : str(body.blobStoreId)
    if (id !== '' && !grids.blobStoreExists?.(id)) throw refuse('blobStoreId', `${JSON.stringify(id)} is not a blob store (GET gwc/rest/blobstores lists them)`)
    blobStoreId = id === '' ? undefined : id
  }
  const parameterFilters = body.parameterFilters !== undefined ? parseParameterFilters(layer, body.parameterFilters, view) : current.parameterFilters
  const settings = parseTileSettings(name, { expireCache: body.expireCache, expireClients: body.expireClients }, current) ?? current
  const { gridSubsets: _, blobStoreId: __, parameterFilters: ___, ...rest } = settings
  return { ...rest, ...(gridSubsets ? { gridSubsets } : {}), ...(blobStoreId !== undefined ? { blobStoreId } : {}), ...(parameterFilters ? { parameterFilters } : {}) }
}

const int = (field: string, v: unknown): number => {
  const s = str(v)
  if (!/^\d{1,3}$/.test(s)) throw GwcLayerUnsupported(field, `${JSON.stringify(s)} is not a zoom level`)
  return Number(s)
}

/** An extent as GWC writes it (`<extent><coords><double>` x4, JSON `{ coords: [...] }`). */
function extentOf (field: string, v: unknown): BBox {
  const coords = typeof v === 'object' && v !== null ? (v as Record<string, unknown>).coords : undefined
  const values = list(coords, 'double').map((c) => Number(str(c)))
  if (values.length !== 4 || !values.every(Number.isFinite)) throw GwcLayerUnsupported(field, 'must be coords of four numbers: minx, miny, maxx, maxy in the grid set\'s CRS')
  if (values[0] >= values[2] || values[1] >= values[3]) throw GwcLayerUnsupported(field, `${values.join(',')} is empty (min must be below max)`)
  return values as BBox
}

/**
 * The grid subsets sent: each names a known grid set once, with levels inside it and an extent that
 * meets it. Undefined when they are exactly the layer's defaults (every default grid set, all its
 * levels, no extent), so the layer keeps following the custom grid sets created later.
 */
function parseGridSubsets (v: unknown, grids: GridChoice): GridSubsetSetting[] | undefined {
  const sent = list(v, 'gridSubset') as Array<Record<string, unknown>>
  if (sent.length === 0) throw GwcLayerUnsupported('gridSubsets', 'a tile layer needs at least one grid subset')
  const out: GridSubsetSetting[] = []
  for (const g of sent) {
    if (g === null || typeof g !== 'object') throw GwcLayerUnsupported('gridSubsets', `${JSON.stringify(g)} is not a gridSubset`)
    const gsName = str(g.gridSetName ?? '')
    const gs = grids.find(gsName)
    if (!gs) throw GwcLayerUnsupported('gridSubsets gridSetName', `${JSON.stringify(gsName)} is not a grid set (GET gridsets lists them)`)
    if (out.some((o) => o.gridSetName === gs.id)) throw GwcLayerUnsupported('gridSubsets', `grid set ${gs.id} is named twice`)
    for (const k of Object.keys(g)) if (!SUBSET_FIELDS.includes(k)) throw GwcLayerUnsupported(`gridSubsets ${gs.id} ${k}`, `not a field of a grid subset; its fields are ${SUBSET_FIELDS.join(', ')}`)
    const top = maxZoom(gs)
    const given = (k: string) => g[k] !== undefined && g[k] !== null && str(g[k]) !== ''
    const zoomStart = given('zoomStart') ? int(`gridSubsets ${gs.id} zoomStart`, g.zoomStart) : 0
    const zoomStop = given('zoomStop') ? int(`gridSubsets ${gs.id} zoomStop`, g.zoomStop) : top
    if (zoomStop > top) throw GwcLayerUnsupported(`gridSubsets ${gs.id} zoomStop`, `${zoomStop}: grid set ${gs.id} has levels 0-${top}`)
    if (zoomStart > zoomStop) throw GwcLayerUnsupported(`gridSubsets ${gs.id} zoomStart`, `${zoomStart} is above zoomStop ${zoomStop}`)
    // Levels served but not cached (GWC passes them through to the WMS) are not supported: every
    // tile served is cached. Cached levels that cover the served ones say nothing more.
    if (given('minCachedLevel') && int(`gridSubsets ${gs.id} minCachedLevel`, g.minCachedLevel) > zoomStart) throw GwcLayerUnsupported(`gridSubsets ${gs.id} minCachedLevel`, 'levels served without being cached are not supported; narrow zoomStart instead')
    if (given('maxCachedLevel') && int(`gridSubsets ${gs.id} maxCachedLevel`, g.maxCachedLevel) < zoomStop) throw GwcLayerUnsupported(`gridSubsets ${gs.id} maxCachedLevel`, 'levels served without being cached are not supported; narrow zoomStop instead')
    const s: GridSubsetSetting = { gridSetName: gs.id }
    if (zoomStart !== 0) s.zoomStart = zoomStart
    if (zoomStop !== top) s.zoomStop = zoomStop
    if (given('extent')) {
      const e = extentOf(`gridSubsets ${gs.id} extent`, g.extent)
      const ge = gs.extent
      if (e[2] <= ge[0] || e[0] >= ge[2] || e[3] <= ge[1] || e[1] >= ge[3]) throw GwcLayerUnsupported(`gridSubsets ${gs.id} extent`, `${e.join(',')} is outside grid set ${gs.id} (${ge.join(',')})`)
      s.extent = e
    }
    out.push(s)
  }
  const plain = out.every((s) => Object.keys(s).length === 1)
  const same = plain && out.length === grids.defaults.length && grids.defaults.every((d) => out.some((s) => s.gridSetName === d.id))
  return same ? undefined : out
}

const VALUE_ITEM: Record<FilterKind, string> = { stringParameterFilter: 'string', regexParameterFilter: 'string', floatParameterFilter: 'float', integerParameterFilter: 'int' }
const KIND_FIELDS: Record<FilterKind, string[]> = {
  stringParameterFilter: ['key', 'defaultValue', 'normalize', 'values'],
  regexParameterFilter: ['key', 'defaultValue', 'normalize', 'regex'],
  floatParameterFilter: ['key', 'defaultValue', 'values', 'threshold'],
  integerParameterFilter: ['key', 'defaultValue', 'values', 'threshold']
}
const MAX_FILTER_TEXT = 4096

/**
 * The administrator's filters a GeoServerLayer's parameterFilters names (GWC's XStream shape, XML or
 * JSON); STYLES' filter must be the layer's own, and a TIME or ELEVATION regex ".*" without default
 * is the layer's own filter of its dimension (not kept). Undefined: the layer's own filters only.
 */
function parseParameterFilters (layer: LayerInfo, v: unknown, view: GeoServerLayerView): ParameterFilterSetting[] | undefined {
  if (v === '' || v === null) return undefined
  if (typeof v !== 'object' || Array.isArray(v)) throw GwcLayerUnsupported('parameterFilters', 'must hold filters by kind (stringParameterFilter, regexParameterFilter, floatParameterFilter, integerParameterFilter, styleParameterFilter)')
  const dims = layerDimensions(layer)
  const out: ParameterFilterSetting[] = []
  for (const [kind, entries] of Object.entries(v as Record<string, unknown>)) {
    for (const e of (Array.isArray(entries) ? entries : [entries]) as unknown[]) {
      if (e === null || typeof e !== 'object') throw GwcLayerUnsupported(`parameterFilters ${kind}`, `${JSON.stringify(e)} is not a filter`)
      const f = e as Record<string, unknown>
      const key = str(f.key ?? '').toUpperCase()
      const field = `parameterFilters ${kind} ${key}`
      if (kind === 'styleParameterFilter') {
        const mine = view.parameterFilters.find((g) => g.kind === 'styleParameterFilter')
        if (key !== 'STYLES' || !mine || mine.kind !== 'styleParameterFilter') throw GwcLayerUnsupported(field, 'a style filter is on STYLES')
        for (const k of Object.keys(f)) {
          if (k === 'key') continue
          if (k === 'defaultValue' && str(f[k] ?? '') === '') continue
          if (k === 'allowedStyles') {
            const styles = list(f.allowedStyles, 'string').map(str)
            if (styles.length === (mine.allowedStyles ?? []).length && styles.every((s) => mine.allowedStyles!.includes(s))) continue
          }
          throw GwcLayerUnsupported(`parameterFilters STYLES ${k}`, 'STYLES\' filter follows the layer\'s styles (PUT rest/layers/<layer> defaultStyle and styles)')
        }
        continue
      }
      if (!(FILTER_KINDS as readonly string[]).includes(kind)) throw GwcLayerUnsupported(`parameterFilters ${kind}`, `not a filter kind; they are ${FILTER_KINDS.join(', ')}, styleParameterFilter`)
      const k = kind as FilterKind
      if (!FILTERABLE_KEYS.includes(key)) throw GwcLayerUnsupported(field, `a filter narrows one of ${FILTERABLE_KEYS.join(', ')} (the parameters the render uses; STYLES has its style filter)`)
      if ((key === 'TIME' || key === 'ELEVATION') && !dims.has(key.toLowerCase())) throw GwcLayerUnsupported(field, `layer ${layer.qualifiedName} has no ${key.toLowerCase()} dimension`)
      if (key === 'VIEWPARAMS' && !virtualTableOf(layer)) throw GwcLayerUnsupported(field, `layer ${layer.qualifiedName} is no SQL view (VIEWPARAMS are the parameters of a JDBC_VIRTUAL_TABLE feature type)`)
      if (out.some((o) => o.key === key)) throw GwcLayerUnsupported(field, `${key} is filtered twice`)
      for (const name of Object.keys(f)) if (!KIND_FIELDS[k].includes(name)) throw GwcLayerUnsupported(`${field} ${name}`, `not a field of a ${k}; its fields are ${KIND_FIELDS[k].join(', ')}`)
      const text = (name: string, s: string) => {
        if (s.length > MAX_FILTER_TEXT) throw GwcLayerUnsupported(`${field} ${name}`, `longer than ${MAX_FILTER_TEXT} characters`)
        if (/[\u0000-\u001f]/.test(s)) throw GwcLayerUnsupported(`${field} ${name}`, 'holds control characters')
        return s
      }
      const filter: ParameterFilterSetting = { kind: k, key, defaultValue: f.defaultValue === undefined || f.defaultValue === null ? '' : text('defaultValue', str(f.defaultValue)) }
      if (k === 'regexParameterFilter') {
        const regex = f.regex === undefined || f.regex === null ? '' : text('regex', str(f.regex))
        if (regex === '') throw GwcLayerUnsupported(`${field} regex`, 'a regex filter needs its regex')
        try { filterRegex(regex) } catch (err) { throw GwcLayerUnsupported(`${field} regex`, `${JSON.stringify(regex)} is not a regular expression: ${(err as Error).message}`) }
        filter.regex = regex
      }
      if (f.normalize !== undefined && f.normalize !== null && f.normalize !== '') {
        const n = f.normalize as Record<string, unknown>
        const c = str(n.case ?? 'NONE').toUpperCase()
        if (c !== 'NONE' && c !== 'UPPER' && c !== 'LOWER') throw GwcLayerUnsupported(`${field} normalize case`, `${JSON.stringify(c)} is not NONE, UPPER or LOWER`)
        const locale = n.locale === undefined || n.locale === null ? '' : str(n.locale)
        if (locale !== '') {
          try { new Intl.Locale(locale.replace(/_/g, '-')) } catch { throw GwcLayerUnsupported(`${field} normalize locale`, `${JSON.stringify(locale)} is not a locale`) }
        }
        for (const name of Object.keys(n)) if (name !== 'case' && name !== 'locale') throw GwcLayerUnsupported(`${field} normalize ${name}`, 'a normalize has case and locale')
        if (c !== 'NONE' || locale !== '') filter.normalize = { case: c as CaseNormalize['case'], ...(locale !== '' ? { locale: locale.replace(/_/g, '-') } : {}) }
      }
      if (k !== 'regexParameterFilter') {
        const values = list(f.values, VALUE_ITEM[k]).map((x) => text('values', str(x)))
        if (k !== 'stringParameterFilter') {
          for (const x of values) {
            const ok = k === 'integerParameterFilter' ? /^[+-]?\d{1,10}$/.test(x) : x !== '' && Number.isFinite(Number(x))
            if (!ok) throw GwcLayerUnsupported(`${field} values`, `${JSON.stringify(x)} is not ${k === 'integerParameterFilter' ? 'a whole number' : 'a number'}`)
          }
        } else if (values.length === 0) throw GwcLayerUnsupported(`${field} values`, 'a string filter lists the values it allows')
        filter.values = k === 'stringParameterFilter' ? values : values.map((x) => k === 'floatParameterFilter' ? javaFloat(Number(x)) : String(Number(x)))
        if (f.threshold !== undefined && f.threshold !== null && f.threshold !== '') {
          const t = str(f.threshold)
          const n = Number(t)
          if (!Number.isFinite(n) || n <= 0 || (k === 'integerParameterFilter' && !Number.isInteger(n))) throw GwcLayerUnsupported(`${field} threshold`, `${JSON.stringify(t)} is not a ${k === 'integerParameterFilter' ? 'whole ' : ''}number above 0`)
          filter.threshold = n
        }
      }
      // The layer's own dimension filter sent back as GET showed it is not an administrator's filter.
      if (k === 'regexParameterFilter' && filter.regex === '.*' && filter.defaultValue === '' && !filter.normalize && (key === 'TIME' || key === 'ELEVATION')) continue
      out.push(filter)
    }
  }
  return out.length ? out : undefined
}
