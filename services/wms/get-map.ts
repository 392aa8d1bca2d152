// GetMap: the map drawn through the render entry (planned, run on the render pool behind the render
// queue's interactive lane, a vanished granule planned again once; the drawing is
// services/render/map.ts, in strips), or a tile-aligned map from the tile cache (cached-map.ts);
// and the image EXCEPTIONS=INIMAGE or BLANK put in place of an error.
import type { Principal } from '../auth/authenticator.js'
import { WmsNotTileAligned, WmsRequestMemory } from '../errors.js'
import type { ExceptionImagePayload, MapPayload } from '../render/map.js'
import { allPlans } from '../render/vector/vector-plan.js'
import { parseBoolean, parseColor, parseExceptions, parseFormat, parseSize, required, type ExceptionsMode, type Kvp } from './request.js'
import { mapSpec } from './map-spec.js'
import { fromCache } from './cached-map.js'
import { CONTENT_TYPES, type MapAnswer, type WmsContext, type Where } from './wms-context.js'

export function mapOperations (ctx: WmsContext) {
  const { deps } = ctx
  return {
    async getMap (q: Kvp, principal: Principal | undefined, where: Where = {}): Promise<MapAnswer> {
      const format = parseFormat(required(q, 'FORMAT'))
      parseExceptions(q.EXCEPTIONS)
      const s = await mapSpec(ctx, q, principal, where)
      const transparent = parseBoolean(q, 'TRANSPARENT', false)
      const bgcolor = parseColor(q.BGCOLOR)
      let missReason: string | undefined
      if (where.cacheOnly || parseBoolean(q, 'TILED', false)) {
        const cached = await fromCache(ctx, s, format, principal, where)
        if (typeof cached !== 'string') return cached
        if (where.cacheOnly) throw WmsNotTileAligned(cached)
        missReason = cached
      }
      // The WMS maxRequestMemory (KiB; 0: none), as GeoServer's rendered formats apply it: the map's
      // RGBA surface (4 bytes a pixel) must fit; a map from the tile cache is not drawn, so not counted.
      const limitKb = deps.serviceSettings.get('wms', where.workspace).maxRequestMemory ?? 0
      const bytes = s.width * s.height * 4
      if (limitKb > 0 && bytes > limitKb * 1024) throw WmsRequestMemory(Math.floor(bytes / 1024), limitKb)
      const payload = async (): Promise<MapPayload> => ({
        jobs: await allPlans(s.layers.map((_, i) => ctx.planLayer(s, i))),
        width: s.width,
        height: s.height,
        format,
        transparent,
        bgcolor
      })
      const data = await deps.renderer.draw<Uint8Array>({ name: 'renderMap', priority: 'interactive', payload }, s.layers.map((l) => l.qualifiedName).join(','))
      return { data, contentType: CONTENT_TYPES[format], missReason }
    },

    /** EXCEPTIONS=INIMAGE or BLANK: the image that replaces the error, or undefined when the
     *  request cannot say how it should look (then the XML report is sent). */
    async exceptionImage (q: Kvp, message: string): Promise<MapAnswer | undefined> {
      let mode: ExceptionsMode
      let payload: ExceptionImagePayload
      try {
        mode = parseExceptions(q.EXCEPTIONS)
        if (mode === 'xml') return undefined
        const format = parseFormat(required(q, 'FORMAT'))
        payload = {
          width: parseSize(q, 'WIDTH', deps.maxSize),
          height: parseSize(q, 'HEIGHT', deps.maxSize),
          format,
          transparent: parseBoolean(q, 'TRANSPARENT', false),
          bgcolor: parseColor(q.BGCOLOR),
          message: mode === 'inimage' ? message : undefined
        }
      } catch { return undefined }
      const data = await deps.renderer.run<Uint8Array>({ name: 'exceptionImage', priority: 'interactive', payload: async () => payload })
      return { data, contentType: CONTENT_TYPES[payload.format] }
    }
  }
}
