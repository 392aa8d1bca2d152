// A GeoServerLayer sent to GeoWebCache's REST (PUT or POST layers/<layer>.xml), applied to the settings
// mapwarden keeps: expireCache and expireClients go to the layer's tile settings (the same the layer
// resource writes); every other field must say what mapwarden does (all the layer's formats, the two grid sets over
// all their levels, 4x4 metatiles, no gutter, the layer's own parameter filters, the one blob store),
// and anything else is refused with a 400 naming the field, never dropped. Validated whole first.
import type { LayerInfo } from '../catalog/layers.js'
import { GwcLayerUnsupported } from '../errors.js'
import type { GridSet } from './grid-sets.js'
import { geoServerLayerView } from './geoserver-layer.js'
import { parseTileSettings, type TileLayerSettings } from './layer-settings.js'

const FIELDS = ['id', 'enabled', 'name', 'mimeFormats', 'gridSubsets', 'metaWidthHeight', 'expireCache', 'expireClients', 'parameterFilters', 'gutter', 'blobStoreId']

const list = (v: unknown, item: string): unknown[] => {
  if (v === undefined || v === null || v === '') return []
  if (Array.isArray(v)) return v
  if (typeof v === 'object' && item in (v as object)) { const i = (v as Record<string, unknown>)[item]; return Array.isArray(i) ? i : [i] }
  return [v]
}
const str = (v: unknown) => typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v)

/** The tile settings a GeoServerLayer body asks for; throws GwcLayerUnsupported naming what mapwarden cannot apply. */
export function applyGeoServerLayer (layer: LayerInfo, body: Record<string, unknown>, current: TileLayerSettings, gridSets?: GridSet[]): TileLayerSettings {
  const name = layer.qualifiedName
  const refuse = (field: string, why: string) => GwcLayerUnsupported(field, why)
  const view = geoServerLayerView(layer, current, gridSets)
  for (const k of Object.keys(body)) if (!FIELDS.includes(k)) throw refuse(k, `not a field mapwarden keeps for a tile layer; its fields are ${FIELDS.join(', ')}`)
  if (body.name !== undefined && str(body.name) !== name) throw refuse('name', `${str(body.name)} is not ${name}: a tile layer is renamed with its layer`)
  if (body.id !== undefined && str(body.id) !== view.id) throw refuse('id', `${str(body.id)} is not ${view.id}`)
  if (body.enabled !== undefined && str(body.enabled) !== 'true') throw refuse('enabled', 'a tile layer is disabled with its layer (PUT rest/layers/<layer> with enabled false)')
  if (body.mimeFormats !== undefined) {
    const sent = list(body.mimeFormats, 'string').map(str)
    const same = sent.length === view.mimeFormats.length && view.mimeFormats.every((f) => sent.includes(f))
    if (!same) throw refuse('mimeFormats', `mapwarden serves every tile format a layer has (${view.mimeFormats.join(', ')}; application/vnd.mapbox-vector-tile for vector layers and layer groups); a list of its own per layer is not supported`)
  }
  if (body.gridSubsets !== undefined) {
    const sent = list(body.gridSubsets, 'gridSubset') as Array<Record<string, unknown>>
    for (const g of sent) {
      const gs = view.gridSubsets.find((v) => v.gridSetName === str(g?.gridSetName))
      if (!gs) throw refuse('gridSubsets', `grid set ${str(g?.gridSetName)} is not one mapwarden serves the layer in (${view.gridSubsets.map((v) => v.gridSetName).join(', ')})`)
      for (const k of Object.keys(g)) {
        if (k === 'gridSetName') continue
        if (k === 'zoomStart' && Number(str(g[k])) === gs.zoomStart) continue
        if (k === 'zoomStop' && Number(str(g[k])) === gs.zoomStop) continue
        throw refuse(`gridSubsets ${gs.gridSetName} ${k}`, `a subset of the grid set's levels or extent is not supported (levels ${gs.zoomStart}-${gs.zoomStop}, the layer's own extent)`)
      }
    }
    if (sent.length !== view.gridSubsets.length) throw refuse('gridSubsets', `mapwarden serves every layer in ${view.gridSubsets.map((v) => v.gridSetName).join(' and ')}; leaving one out is not supported`)
  }
  if (body.metaWidthHeight !== undefined) {
    const m = list(body.metaWidthHeight, 'int').map(str)
    if (m.length !== 2 || m.some((v, i) => Number(v) !== view.metaWidthHeight[i])) throw refuse('metaWidthHeight', `every metatile is ${view.metaWidthHeight.join('x')} tiles`)
  }
  if (body.gutter !== undefined && Number(str(body.gutter)) !== 0) throw refuse('gutter', 'metatiles are rendered without a gutter')
  if (body.blobStoreId !== undefined && str(body.blobStoreId) !== '') throw refuse('blobStoreId', 'tiles live in the one file blob store of the data directory')
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
  const settings = parseTileSettings(name, { expireCache: body.expireCache, expireClients: body.expireClients }, current)
  return settings ?? current
}
