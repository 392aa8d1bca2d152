// A GeoServerLayer sent to GeoWebCache's REST (PUT or POST layers/<layer>.xml), applied to the settings
// mapwarden keeps: expireCache and expireClients go to the layer's tile settings (the same the layer
// resource writes), and gridSubsets (the grid sets the layer is cached in, each with its levels
// zoomStart-zoomStop and an extent in the grid set's CRS) too; every other field must say what
// mapwarden does (all the layer's formats, 4x4 metatiles, no gutter, the layer's own parameter filters, the one
// blob store unless blobStoreId names one of GWC's REST's file blob stores), and anything else is refused with a 400 naming the field, never dropped. Validated
// whole first.
import type { LayerInfo } from '../catalog/layers.js'
import { GwcLayerUnsupported } from '../errors.js'
import { maxZoom, type BBox } from './grid-sets.js'
import { geoServerLayerView, type GridChoice } from './geoserver-layer.js'
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
  if (body.parameterFilters !== undefined && body.parameterFilters !== '' && body.parameterFilters !== null) {
    const shown = new Set(view.parameterFilters.map((f) => f.key))
    const pf = body.parameterFilters as Record<string, unknown>
    for (const [kind, entries] of Object.entries(typeof pf === 'object' ? pf : {})) {
      for (const e of (Array.isArray(entries) ? entries : [entries]) as Array<Record<string, unknown>>) {
        const key = str(e?.key).toUpperCase()
        if (!shown.has(key)) throw refuse(`parameterFilters ${kind} ${key}`, `the layer's filters are ${[...shown].join(', ')} (STYLES from its styles, TIME and ELEVATION from its dimensions)`)
        const mine = view.parameterFilters.find((f) => f.key === key)!
        if (kind !== mine.kind) throw refuse(`parameterFilters ${kind} ${key}`, `${key} is a ${mine.kind}`)
        if (e.allowedStyles !== undefined) {
          const styles = list(e.allowedStyles, 'string').map(str)
          if (styles.length !== (mine.allowedStyles ?? []).length || styles.some((s) => !mine.allowedStyles!.includes(s))) throw refuse(`parameterFilters ${key} allowedStyles`, 'a layer\'s styles are set through the layer resource (PUT rest/layers/<layer> styles)')
        }
        for (const k of Object.keys(e ?? {})) {
          if (k === 'key' || k === 'allowedStyles') continue
          if (k === 'defaultValue' && str(e[k] ?? '') === '') continue
          if (k === 'regex' && str(e[k]) === mine.regex) continue
          throw refuse(`parameterFilters ${key} ${k}`, 'not supported: the filter follows the layer')
        }
      }
    }
  }
  const settings = parseTileSettings(name, { expireCache: body.expireCache, expireClients: body.expireClients }, current) ?? current
  const { gridSubsets: _, blobStoreId: __, ...rest } = settings
  return { ...rest, ...(gridSubsets ? { gridSubsets } : {}), ...(blobStoreId !== undefined ? { blobStoreId } : {}) }
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
