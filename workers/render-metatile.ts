// The render pool's Piscina entry file: each render thread's startup (its nice value first, one
// libvips thread, no sharp cache, the crash harness's fault points from workerData) and the tasks
// the pool runs by name. The rendering, encoding and tile writing live in services/render.
import './thread-priority.js' // first: before sharp starts libvips' threads, which inherit it
import sharp from 'sharp'
import { workerData } from 'node:worker_threads'
import * as metatile from '../services/render/metatile.js'

const fault = metatile.threadFaults(workerData as metatile.RenderThreadData | undefined)

sharp.concurrency(1) // one libvips thread per worker: the pool is the parallelism
sharp.cache(false)

/** A metatile rendered from its layer's granules; its tiles written here, in the worker. */
export const renderMetatile = (p: metatile.MetatilePayload): Promise<metatile.MetatileResult> => metatile.renderMetatile(p, fault)
/** A metatile of a vector layer or a layer group, drawn from its jobs; its tiles written here. */
export const renderVectorMetatile = (p: metatile.VectorMetatilePayload): Promise<metatile.MetatileResult> => metatile.renderVectorMetatile(p, fault)
/** The vector tiles (MVT) of a vector layer or a layer group, each encoded alone; written here. */
export const renderVectorTiles = async (p: metatile.VectorTilesPayload): Promise<metatile.MetatileResult> => metatile.renderVectorTiles(p, fault)
/** A metatile of a pyramid level, drawn from the tiles of the level below and written like any. */
export const pyramidMetatile = (p: metatile.PyramidPayload): Promise<metatile.MetatileResult> => metatile.pyramidMetatile(p, fault)
export { encodeLoop } from '../services/render/tile-encode.js'
// The WMS's tasks run on the same pool.
export { renderMap, pixelValues, exceptionImage, legendGraphic } from './render-map.js'
