// The drawing job of a vector layer, planned on the event loop's thread (database I/O only): the
// request's bbox, widened by a margin for symbols and labels, taken to the data's CRS; the
// features that meet it read through the layer's vector source (its spatial index), at most
// `maxFeatures` of them (past the cap the map is refused, never cut short silently), the first
// BATCH_FEATURES in the job and the rest streamed to the render thread a batch at a time (feed), so
// memory stays bounded whatever the count; and the OGC scale denominator the rules are chosen by.
// Decoding, reprojection and drawing happen in a render worker (draw-vector.ts).
import { MessageChannel, type MessagePort } from 'node:worker_threads'
import { WmsTooManyFeatures } from '../../errors.js'
import { allOf, anyOf, forSchema, type Envelope, type Filter } from '../../filters/tree.js'
import { parseEcql, type FilterSchema } from '../../filters/ecql.js'
import { inCrs } from '../../filters/spatial.js'
import type { Feature, VectorSource } from '../../vector/source.js'
import type { SqlView } from '../../vector/virtual-table.js'
import { isGeographic, isSeparable, METRES_PER_DEGREE, pointTransform, transformBbox } from '../crs.js'
import type { RenderRequest } from '../render-types.js'
import type { VectorFeature, VectorJob } from './draw-vector.js'
import { inScale, type VectorStyle } from './vector-style.js'

/** Where a vector layer's features are read: its source, the source's type name, their CRS. */
export interface VectorLayerData {
  source: Pick<VectorSource, 'readFeatures' | 'vectorTile'>
  type: string
  /** The CRS the geometries are stored in (EPSG:4326 when the data declares none). */
  dataCrs: string
  /** The attributes CQL_FILTER is resolved against. */
  schema: FilterSchema
  /** An SQL view's SELECT with the request's parameters bound, read in place of the table. */
  view?: SqlView
}

export interface VectorPlanDeps {
  layerData (layer: string, viewParams?: Record<string, string>): Promise<VectorLayerData>
  /** The most features one map may draw of one layer (MAPWARDEN_WMS_MAX_FEATURES). */
  maxFeatures: number
  /** Features per batch handed to the render thread (BATCH_FEATURES); tests make it small. */
  batchFeatures?: number
}

/** Pixels around the map whose features are read too: symbols and labels that reach into it. */
export const MARGIN_PIXELS = 64

/** The fraction of a pixel geometries are simplified to before they are drawn: under it, the
 *  antialiased edges of a simplified outline and of the full one differ by a few levels of grey. */
export const SIMPLIFY_PIXELS = 0.5

/**
 * The smallest extent of one pixel of the map in the data's CRS units, sampled on a grid of the map
 * (a reprojected map's pixels change size across it: the smallest one sets the tolerance); undefined
 * where no sample can be taken there.
 */
export function pixelInData (req: Pick<RenderRequest, 'crs' | 'bbox' | 'width' | 'height' | 'proj4Defs'>, dataCrs: string): number | undefined {
  const [x0, y0, x1, y1] = req.bbox
  const px = (x1 - x0) / req.width
  const py = (y1 - y0) / req.height
  const t = pointTransform(req.crs, dataCrs, req.proj4Defs)
  const n = 8
  let least = Infinity
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= n; j++) {
      const x = x0 + (x1 - x0 - px) * i / n
      const y = y0 + (y1 - y0 - py) * j / n
      const [ax, ay] = t(x, y); const [bx, by] = t(x + px, y); const [cx, cy] = t(x, y + py)
      const d = Math.min(Math.hypot(bx - ax, by - ay), Math.hypot(cx - ax, cy - ay))
      if (Number.isFinite(d) && d > 0) least = Math.min(least, d)
    }
  }
  return Number.isFinite(least) ? least : undefined
}


/** The OGC scale denominator of a map: its ground width per pixel over a 0.28 mm pixel (GeoServer's RendererUtilities.calculateOGCScale). */
export function ogcScale (crs: string, bbox: [number, number, number, number], width: number): number {
  const perUnit = isGeographic(crs) ? METRES_PER_DEGREE : 1
  return (bbox[2] - bbox[0]) * perUnit / width / 0.00028
}

/** The style with its rules' spatial literals in the data's CRS (filters/spatial.ts inCrs); itself when none waits for it. */
export function styleInCrs (style: VectorStyle, crs: string, defs?: Record<string, string>): VectorStyle {
  let changed = false
  const featureTypeStyles = style.featureTypeStyles.map((fts) => ({
    rules: fts.rules.map((r) => {
      const filter = r.filter && inCrs(r.filter, crs, defs)
      if (filter === r.filter) return r
      changed = true
      return { ...r, filter }
    })
  }))
  return changed ? { featureTypeStyles } : style
}

/**
 * The features a style draws at a scale, as the layer's source reads them (tree.ts forSchema):
 * undefined for all of them (a rule without filter, an ElseFilter rule, a filter the source cannot
 * answer as the renderer does), a false constant for none (no rule in scale), else any rule's
 * filter. A rule limited to one kind of geometry (the generic style's) counts as drawing all.
 */
export function drawnFilter (style: VectorStyle, scale: number, attributes: ReadonlyArray<{ name: string, type: string }>): Filter | undefined {
  const filters: Filter[] = []
  for (const fts of style.featureTypeStyles) {
    for (const r of fts.rules) {
      if (!inScale(r, scale)) continue
      const f = r.else || !r.filter ? undefined : forSchema(r.filter, attributes)
      if (!f) return undefined
      filters.push(f)
    }
  }
  return anyOf(filters) ?? { k: 'const', v: false }
}

export async function planVector (deps: VectorPlanDeps, req: RenderRequest, style: VectorStyle): Promise<VectorJob> {
  const data = await deps.layerData(req.layer, req.viewParams)
  const [x0, y0, x1, y1] = req.bbox
  const mx = (x1 - x0) / req.width * MARGIN_PIXELS
  const my = (y1 - y0) / req.height * MARGIN_PIXELS
  const wide: Envelope = [x0 - mx, y0 - my, x1 + mx, y1 + my]
  const area = transformBbox(wide, req.crs, data.dataCrs, req.proj4Defs)
  const features: VectorFeature[] = []
  const job: VectorJob = {
    kind: 'vector',
    layer: req.layer,
    crs: req.crs,
    bbox: req.bbox,
    width: req.width,
    height: req.height,
    dataCrs: data.dataCrs,
    scale: ogcScale(req.crs, req.bbox, req.width),
    simplify: SIMPLIFY_PIXELS,
    style: styleInCrs(style, data.dataCrs, req.proj4Defs),
    features
  }
  if (req.proj4Defs) job.proj4Defs = req.proj4Defs
  const drawsAnything = style.featureTypeStyles.some((f) => f.rules.length > 0)
  if (!drawsAnything || !area.every(Number.isFinite)) return job
  // CQL_FILTER: resolved against the feature type's attributes, compiled by the source to SQL;
  // and the features the style's rules may draw at this scale, where the source can tell (in
  // PostGIS' or GeoPackage's SQL, after the read for a shapefile): the renderer applies each rule.
  const cql: Filter | undefined = req.cqlFilter !== undefined && req.cqlFilter.trim() !== '' ? parseEcql(req.cqlFilter, data.schema) : undefined
  const drawn = drawnFilter(style, job.scale, data.schema.attributes)
  if (drawn?.k === 'const' && !drawn.v) return job
  const filter = allOf([drawn, cql].filter((f): f is Filter => f !== undefined))
  // Geometries simplified to half a pixel and cut to the map's area with its margin: PostGIS in the
  // database, so the read and its transfer to the render thread carry what the pixels show (a
  // country's coast at a tile's zoom is read only where the metatile shows it); the file sources
  // answer them whole. The render thread simplifies them all again as they become pixels
  // (job.simplify), off the event loop: the database's tolerance is the map's smallest pixel in
  // the data's units (a pixel at a Web Mercator map's top edge), finer than most of the map needs.
  // The cut only where the box's edges stay straight lines on the map (a separable pair of CRSs:
  // the same, or longitude/latitude and Web Mercator), so the edges it adds, drawn as straight
  // segments between their ends, stay in the margin, out of the picture.
  const pixel = pixelInData(req, data.dataCrs)
  const simplify = pixel !== undefined ? pixel * SIMPLIFY_PIXELS : undefined
  const clip = isSeparable(data.dataCrs, req.crs) ? area : undefined
  const it = data.source.readFeatures({ type: data.type, bbox: area, ...(filter ? { filter } : {}), ...(simplify ? { simplify } : {}), ...(clip ? { clip } : {}), ...(data.view ? { view: data.view } : {}) })[Symbol.asyncIterator]()
  let read = 0
  /** Up to `n` more features; `done` when the read has ended. */
  const take = async (n: number): Promise<{ features: VectorFeature[], done: boolean }> => {
    const out: VectorFeature[] = []
    while (out.length < n) {
      const r = await it.next()
      if (r.done) return { features: out, done: true }
      const f = r.value
      if (!(f.geometry instanceof Uint8Array)) continue
      if (++read > deps.maxFeatures) throw WmsTooManyFeatures(req.layer, deps.maxFeatures)
      out.push({ geometry: f.geometry, properties: f.properties })
    }
    return { features: out, done: false }
  }
  let first
  try { first = await take(deps.batchFeatures ?? BATCH_FEATURES) } catch (err) { await it.return?.(); throw err }
  features.push(...first.features)
  if (!first.done) job.more = feed(it, take, deps.batchFeatures ?? BATCH_FEATURES)
  return job
}

/** Features a map's plan holds and a render thread is given at once: a layer of more is streamed. */
export const BATCH_FEATURES = 10_000
/** A feed not handed to a render (its plan failed beside another's) is closed after this long unasked. */
const FEED_IDLE_MS = 60_000

interface Feed { error?: Error, close (): void, handOver (): void }
const feeds = new WeakMap<MessagePort, Feed>()

/**
 * The rest of a read past its first batch, handed to the render thread a batch at a time as it
 * asks (draw-vector.ts's batches): the thread's port of a channel whose other end reads the next
 * batch when asked, so neither thread holds more than a batch or two of a layer of any size.
 * Closed (the read ended, its connection given back) when the render ends (endFeeds), when the
 * thread closes its end, or, until a render takes it (feedPorts: the layers before it may take
 * minutes to draw), after FEED_IDLE_MS without a question.
 */
function feed (it: AsyncIterator<unknown>, take: (n: number) => Promise<{ features: VectorFeature[], done: boolean }>, batch: number): MessagePort {
  const { port1, port2 } = new MessageChannel()
  let idle: NodeJS.Timeout | undefined
  let closed = false
  let handed = false
  const state: Feed = {
    handOver () { handed = true; clearTimeout(idle) },
    close () {
      if (closed) return
      closed = true
      clearTimeout(idle)
      port1.close()
      void Promise.resolve(it.return?.()).catch(() => {})
    }
  }
  const wait = () => { clearTimeout(idle); if (handed) return; idle = setTimeout(state.close, FEED_IDLE_MS); idle.unref() }
  port1.on('message', () => {
    wait()
    take(batch).then((b) => { if (!closed) port1.postMessage(b) }, (err: Error) => {
      state.error = err
      if (!closed) port1.postMessage({ error: err.message })
      state.close()
    })
  })
  port1.on('close', state.close)
  port1.unref()
  wait()
  feeds.set(port2, state)
  return port2
}

/** The feeds of a payload's vector jobs (MapPayload's or a metatile's `jobs`): moved to the render thread with it, which endFeeds closes. */
export function feedPorts (payload: unknown): MessagePort[] {
  const jobs = (payload as { jobs?: unknown } | undefined)?.jobs
  if (!Array.isArray(jobs)) return []
  const ports = jobs.map((j) => (j as Partial<VectorJob>).more).filter((p): p is MessagePort => p !== undefined && feeds.has(p))
  for (const p of ports) feeds.get(p)?.handOver()
  return ports
}

/**
 * The plans of a map's or a metatile's layers, made side by side: their jobs in order, or, when one
 * fails, that failure once every plan has settled, the feeds the others opened closed at once (their
 * reads ended, their connections given back) rather than left to FEED_IDLE_MS.
 */
export async function allPlans<T> (plans: Array<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(plans)
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (!failed) return settled.map((r) => (r as PromiseFulfilledResult<T>).value)
  endFeeds(feedPorts({ jobs: settled.flatMap((r) => r.status === 'fulfilled' ? [r.value] : []) }))
  throw failed.reason
}

/** Closes the feeds of a render that ended; the error one of them met (too many features, the source's), which the render failed of. */
export function endFeeds (ports: MessagePort[]): Error | undefined {
  let error: Error | undefined
  for (const p of ports) {
    const f = feeds.get(p)
    if (!f) continue
    f.close()
    error ??= f.error
  }
  return error
}

/**
 * The features of a vector layer that meet an area of a map (GetFeatureInfo's pixel widened by
 * its BUFFER), in the map's CRS: the exact intersection is PostGIS's (ST_Intersects), the
 * geometries come back as GeoJSON in the data's CRS, at most `limit` of them.
 */
export async function featuresAt (deps: Pick<VectorPlanDeps, 'layerData'>, layer: string, area: Envelope, crs: string, proj4Defs: Record<string, string> | undefined,
  limit: number, viewParams?: Record<string, string>): Promise<{ features: Feature[], dataCrs: string }> {
  const data = await deps.layerData(layer, viewParams)
  const env = transformBbox(area, crs, data.dataCrs, proj4Defs)
  const features: Feature[] = []
  if (!env.every(Number.isFinite)) return { features, dataCrs: data.dataCrs }
  for await (const f of data.source.readFeatures({ type: data.type, bbox: env, limit, geometryFormat: 'geojson', ...(data.view ? { view: data.view } : {}) })) features.push(f)
  return { features, dataCrs: data.dataCrs }
}
