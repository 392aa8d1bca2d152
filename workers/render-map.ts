// The WMS's tasks on the render pool, exported by render-metatile.ts (the pool's entry file). The
// images are drawn by services/render/map.ts; here they are moved, not copied, to the event loop's
// thread.
import { move } from 'piscina'
import { drawExceptionImage, drawMap, type ExceptionImagePayload, type MapPayload, type MapResult } from '../services/render/map.js'

export { pixelValues } from '../services/render/map.js'
import { drawLegend, type LegendPayload } from '../services/render/vector/legend.js'

export async function renderMap (p: MapPayload): Promise<MapResult> {
  const out = await drawMap(p)
  return out instanceof Uint8Array ? move(out) as unknown as MapResult : out
}

/** EXCEPTIONS=INIMAGE (the message drawn in the map) or BLANK (an empty map). */
export async function exceptionImage (p: ExceptionImagePayload): Promise<Uint8Array> {
  return move(await drawExceptionImage(p)) as unknown as Uint8Array
}

/** GetLegendGraphic of a vector style. */
export async function legendGraphic (p: LegendPayload): Promise<Uint8Array> {
  return move(await drawLegend(p)) as unknown as Uint8Array
}
