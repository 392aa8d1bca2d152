// GetLegendGraphic (SLD 1.0's WMS extension, as GeoServer answers it): the legend of a layer's
// style drawn on the render pool (render/vector/legend.ts): a swatch per rule with its title, for
// a vector layer from its SLD rules, for a raster layer from its ColorMap entries.
import type { Principal } from '../auth/authenticator.js'
import { WmsInvalidParameter, WmsStyleNotDefined } from '../errors.js'
import { allowedStyles, defaultStyleOf } from '../tilecache/parameters.js'
import type { LegendPayload } from '../render/vector/legend.js'
import type { VectorStyle } from '../render/vector/vector-style.js'
import type { RasterStyle } from '../render/render-types.js'
import { parseBoolean, parseFormat, required, type Kvp } from './request.js'
import { CONTENT_TYPES, type MapAnswer, type WmsContext, type Where } from './wms-context.js'

/** The swatches of a raster style: one per ColorMap entry (its label, else its quantity). */
function rasterLegend (style: RasterStyle | undefined, layer: string): VectorStyle {
  const hex = (c: [number, number, number]) => '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('').toUpperCase()
  const entries = style?.colorMap?.entries ?? []
  if (entries.length === 0) return { featureTypeStyles: [{ rules: [{ title: layer, symbolizers: [{ kind: 'polygon', fill: { color: '#808080', opacity: 1 } }] }] }] }
  return {
    featureTypeStyles: [{
      rules: entries.map((e) => ({
        title: e.label ?? (Number.isFinite(e.quantity) ? String(e.quantity) : ''),
        symbolizers: [{ kind: 'polygon', fill: { color: hex(e.color), opacity: e.opacity } }]
      }))
    }]
  }
}

function size (q: Kvp, name: string): number {
  const v = q[name]
  if (v === undefined || v.trim() === '') return 20
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1 || n > 512) throw WmsInvalidParameter(name, JSON.stringify(v.slice(0, 30)), 'a whole number of pixels from 1 to 512 is expected')
  return n
}

export function legendOperations (ctx: WmsContext) {
  const { deps } = ctx
  return {
    async getLegendGraphic (q: Kvp, principal: Principal | undefined, where: Where = {}): Promise<MapAnswer> {
      const format = parseFormat(required(q, 'FORMAT'))
      const layer = await ctx.readable(required(q, 'LAYER').trim(), principal, where)
      let styleName = (q.STYLE ?? '').trim()
      const allowed = allowedStyles(layer)
      if (styleName !== '' && !allowed.includes(styleName) && allowed.includes(`${layer.workspace}:${styleName}`)) styleName = `${layer.workspace}:${styleName}`
      if (styleName !== '' && !allowed.includes(styleName)) throw WmsStyleNotDefined(styleName, layer.qualifiedName, allowed.join(', ') || '(default only)')
      const effective = styleName || defaultStyleOf(layer) || ''
      const style = layer.type === 'VECTOR'
        ? await deps.styles.vectorStyleFor(layer.workspace, effective)
        : rasterLegend(await deps.styles.rasterStyleFor(layer.workspace, effective), layer.name)
      const rule = q.RULE?.trim() || undefined
      if (rule !== undefined && !style.featureTypeStyles.some((f) => f.rules.some((r) => r.name === rule))) {
        throw WmsInvalidParameter('RULE', JSON.stringify(rule.slice(0, 60)), `no rule of that name in style ${effective || '(default)'}`)
      }
      const payload: LegendPayload = { style, width: size(q, 'WIDTH'), height: size(q, 'HEIGHT'), format, transparent: parseBoolean(q, 'TRANSPARENT', false), ...(rule ? { rule } : {}) }
      const data = await deps.renderer.run<Uint8Array>({ name: 'legendGraphic', priority: 'interactive', payload: async () => payload })
      return { data, contentType: CONTENT_TYPES[format] }
    }
  }
}
