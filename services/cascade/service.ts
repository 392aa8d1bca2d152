// Cascaded WMS and WMTS stores (GeoServer's WMSStoreController, WMTSStoreController) and their
// remote layers (WMSLayerController, WMTSLayerController): a store names a remote server by its
// capabilities URL, with a user, a password (sealed with the master key, shown only as its token,
// never logged) and connection settings; a layer publishes one remote layer (nativeName) under a
// local name, a layer like the others (type WMS or WMTS) for rest/layers, the WMS and the tile cache.
// Pictures of a WMS layer are the remote's GetMap for the box, size and CRS asked, with the layer's
// remote style and format settings (mapImage); a WMTS layer's are made of the remote's tiles (wmts.ts);
// either is drawn by the render entry like any layer; GetFeatureInfo is the remote WMS's (featureInfo).
// Every call goes through remote.ts (allow-list, limits, deadlines, retries); a failure is a 502 for
// that request, and with disableOnConnFailure an unreachable remote takes the store down (health.ts).
import { checkName } from '../files/names.js'
import { createKeyedQueue } from '../keyed-queue.js'
import { checkFields, unifyShape } from '../body-fields.js'
import type { WorkspaceService } from '../catalog/workspaces.js'
import {
  CascadeChangeRefused, CascadeCrsUnsupported, CascadeLayerNotFound, CascadeRemoteException, CascadeRemoteUnreachable, CascadeStoreDisabled, CascadeStoreNotEmpty,
  CascadeStoreNotFound, InvalidCascadeLayer, InvalidCascadeStore, isMapwardenError
} from '../errors.js'
import type { Secrets } from '../datastores/service.js'
import type { RenderRequest } from '../render/render-types.js'
import type { ImageJob } from '../render/image-job.js'
import sharp from 'sharp'
import { exceptionText, remoteLayers, type RemoteLayer } from './capabilities.js'
import { matrixSetFor, planTiles, tileUrl, wmtsCapabilities, type WmtsCapabilities } from './wmts.js'
import { isSupportedCrs, transformBbox } from '../render/crs.js'
import { shownUrl, type Remote, type RemoteCall } from './remote.js'
import type { StoreHealth } from './health.js'
import { type CascadeKind, type CascadeLayerConfig, type CascadeLayerRow, type CascadeRows, type CascadeStoreConfig, type CascadeStoreRow } from './store.js'

export interface CascadeDeps {
  rows: CascadeRows
  workspaces: Pick<WorkspaceService, 'get'>
  secrets: Secrets
  remote: Remote
  /** disableOnConnFailure's state (health.ts); its probe is set here. */
  health?: StoreHealth
  now?: () => Date
  /** Told after layers went with their store or alone (the tile cache drops them). */
  layersRemoved?: (names: string[]) => Promise<void>
  /** Told after a store or layer changed what it draws (its cached tiles go). */
  layersChanged?: (names: string[], reason: string) => Promise<void>
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const shown = (v: unknown) => { const s = JSON.stringify(v) ?? String(v); return s.length > 64 ? s.slice(0, 64) + '...' : s }
const KIND_NAME: Record<CascadeKind, string> = { wms: 'WMS', wmts: 'WMTS' }
const STORE_ROOT: Record<CascadeKind, string> = { wms: 'wmsStore', wmts: 'wmtsStore' }
const LAYER_ROOT: Record<CascadeKind, string> = { wms: 'wmsLayer', wmts: 'wmtsLayer' }
const CAPABILITIES_KEPT_MS = 10 * 60 * 1000
const MAX_MOSAIC_TILES = 1024

/** Fields of a wmsStore / wmtsStore body (GeoServer's XStream shape); the links of a GET may come back. */
const STORE_WRITABLE = ['name', 'description', 'type', 'enabled', 'workspace', 'capabilitiesURL', 'user', 'password', 'maxConnections',
  'readTimeout', 'connectTimeout', 'useConnectionPooling', 'disableOnConnFailure', 'metadata', 'dateCreated', 'dateModified', 'wmsLayers', 'layers']
const STORE_READ_ONLY = { __default: false, _default: false }
/** Fields of a wmsLayer / wmtsLayer body; those GeoServer has and mapwarden does not apply are accepted as sent. */
const LAYER_WRITABLE = ['name', 'nativeName', 'title', 'abstract', 'description', 'keywords', 'srs', 'nativeCRS', 'nativeBoundingBox',
  'latLonBoundingBox', 'enabled', 'namespace', 'store', 'projectionPolicy', 'advertised', 'metadata', 'serviceConfiguration',
  'simpleConversionEnabled', 'forcedRemoteStyle', 'preferredFormat', 'metadataBBoxRespected', 'allowedRemoteStyles', 'availableFormats',
  'selectedRemoteStyles', 'selectedRemoteFormats',
  'minScale', 'maxScale', 'dateCreated', 'dateModified']

function bool (v: unknown, field: string, invalid: (m: string) => Error): boolean {
  if (v === true || v === false) return v
  if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true'
  throw invalid(`${field} must be true or false: ${shown(v)}`)
}
function int (v: unknown, field: string, min: number, max: number): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  if (!Number.isInteger(n) || n < min || n > max) throw InvalidCascadeStore(`${field} must be a whole number from ${min} to ${max}: ${shown(v)}`)
  return n
}
function textField (v: unknown, field: string, invalid: (m: string) => Error, max = 4096): string | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (typeof v !== 'string' && typeof v !== 'number') throw invalid(`${field} must be text`)
  const s = String(v)
  if (s.length > max) throw invalid(`${field} is longer than ${max} characters`)
  return s
}
function refName (v: unknown, field: string, invalid: (m: string) => Error): string | undefined {
  if (v === undefined || v === '') return undefined
  if (typeof v === 'string') return v
  if (isObject(v) && typeof v.name === 'string') return v.name
  throw invalid(`${field} must name one (<${field}><name>...</name></${field}>)`)
}
/** A list of text as GeoServer writes one (<field><string>a</string>...</field>, {"string": [...]}) or a JSON array. */
function strings (v: unknown, field: string): string[] | undefined {
  if (v === undefined || v === '') return undefined
  const list = isObject(v) ? v.string : v
  const arr = Array.isArray(list) ? list : list === undefined ? [] : [list]
  return arr.map((k) => { if (typeof k !== 'string') throw InvalidCascadeLayer(`${field} must be text`); return k })
}
const keywords = (v: unknown) => strings(v, 'keywords')

const REMOTE_FIELDS = ['preferredFormat', 'forcedRemoteStyle', 'selectedRemoteStyles', 'selectedRemoteFormats'] as const
/**
 * A WMS layer's remote style and format settings over the stored ones, each checked against what the
 * remote's capabilities offer for the layer (a style or format it does not offer is refused by name).
 */
function remoteSettings (b: Record<string, unknown>, config: CascadeLayerConfig, found: RemoteLayer): CascadeLayerConfig {
  const c: CascadeLayerConfig = { ...config, remoteStyles: found.styles }
  const offeredStyle = (name: string, field: string) => {
    if (!found.styles.includes(name)) throw InvalidCascadeLayer(`${field}: the remote offers no style ${shown(name)} for layer ${shown(found.name)} (it offers ${found.styles.map((x) => shown(x)).join(', ') || 'none'})`)
  }
  const offeredFormat = (f: string, field: string) => {
    if (found.formats.length > 0 && !found.formats.includes(f)) throw InvalidCascadeLayer(`${field}: the remote draws no format ${shown(f)} (it draws ${found.formats.join(', ')})`)
    if (!/^image\//i.test(f)) throw InvalidCascadeLayer(`${field}: ${shown(f)} is not an image format`)
  }
  if (b.preferredFormat !== undefined) {
    const f = textField(b.preferredFormat, 'preferredFormat', InvalidCascadeLayer, 128)
    if (f === undefined) delete c.preferredFormat
    else { offeredFormat(f, 'preferredFormat'); c.preferredFormat = f }
  }
  if (b.forcedRemoteStyle !== undefined) {
    const st = textField(b.forcedRemoteStyle, 'forcedRemoteStyle', InvalidCascadeLayer, 256)
    if (st === undefined) delete c.forcedRemoteStyle
    else { offeredStyle(st, 'forcedRemoteStyle'); c.forcedRemoteStyle = st }
  }
  if (b.selectedRemoteStyles !== undefined) {
    const list = strings(b.selectedRemoteStyles, 'selectedRemoteStyles') ?? []
    for (const st of list) offeredStyle(st, 'selectedRemoteStyles')
    if (list.length === 0) delete c.selectedRemoteStyles
    else c.selectedRemoteStyles = [...new Set(list)]
  }
  if (b.selectedRemoteFormats !== undefined) {
    const list = strings(b.selectedRemoteFormats, 'selectedRemoteFormats') ?? []
    for (const f of list) offeredFormat(f, 'selectedRemoteFormats')
    if (list.length === 0) delete c.selectedRemoteFormats
    else c.selectedRemoteFormats = [...new Set(list)]
  }
  if (c.forcedRemoteStyle !== undefined && c.selectedRemoteStyles !== undefined && !c.selectedRemoteStyles.includes(c.forcedRemoteStyle)) {
    throw InvalidCascadeLayer(`forcedRemoteStyle ${shown(c.forcedRemoteStyle)} is not one of selectedRemoteStyles`)
  }
  return c
}

function envelope (v: unknown, field: string): [number, number, number, number] | undefined {
  if (v === undefined || v === '') return undefined
  if (!isObject(v)) throw InvalidCascadeLayer(`${field} must have minx, miny, maxx and maxy`)
  const b = ['minx', 'miny', 'maxx', 'maxy'].map((k) => Number(v[k]))
  if (!b.every(Number.isFinite) || b[0] > b[2] || b[1] > b[3]) throw InvalidCascadeLayer(`${field} must have numbers minx <= maxx and miny <= maxy`)
  return b as [number, number, number, number]
}

/** The GetCapabilities URL of a store's capabilitiesURL (SERVICE and REQUEST added when absent). */
function capabilitiesUrl (base: string, kind: CascadeKind): string {
  const url = new URL(base)
  const keys = new Set([...url.searchParams.keys()].map((k) => k.toUpperCase()))
  if (!keys.has('SERVICE')) url.searchParams.set('SERVICE', KIND_NAME[kind])
  if (!keys.has('REQUEST')) url.searchParams.set('REQUEST', 'GetCapabilities')
  return url.toString()
}

/** A WMS request on the server of a capabilities URL: its own parameters (map=..., tokens) kept, the request's replace the OGC ones. */
function wmsUrl (base: string, params: Record<string, string>): string {
  const url = new URL(base)
  const ours = new Set(Object.keys(params).map((k) => k.toUpperCase()))
  for (const k of [...url.searchParams.keys()]) if (ours.has(k.toUpperCase())) url.searchParams.delete(k)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.toString()
}

export function createCascadeService ({ rows, workspaces, secrets, remote, health, now = () => new Date(), layersRemoved, layersChanged }: CascadeDeps) {
  const serialized = createKeyedQueue()

  const requireStore = async (ws: string, kind: CascadeKind, name: string): Promise<CascadeStoreRow> => {
    await workspaces.get(ws)
    const row = await rows.getStore(ws, name)
    if (!row || row.kind !== kind) throw CascadeStoreNotFound(KIND_NAME[kind], name, ws)
    return row as CascadeStoreRow
  }
  const requireLayer = async (ws: string, kind: CascadeKind, store: string | undefined, name: string): Promise<CascadeLayerRow> => {
    if (store !== undefined) await requireStore(ws, kind, store)
    else await workspaces.get(ws)
    const row = await rows.getLayer(ws, name)
    if (!row || row.kind !== kind || (store !== undefined && row.store !== store)) throw CascadeLayerNotFound(KIND_NAME[kind], name, store ?? '*', ws)
    return row
  }

  /** The stored password token for a sent value: plain text is sealed, a token this key sealed is kept, '' removes it. */
  const sealed = (value: unknown): string | undefined => {
    const v = textField(value, 'password', InvalidCascadeStore)
    if (v === undefined) return undefined
    if (/^crypt[0-9]:/.test(v)) {
      if (secrets.openSecret(v) === undefined) throw InvalidCascadeStore('password is an encrypted token this server cannot open (sealed by another server or key); send the password itself')
      return v
    }
    return secrets.sealSecret(v)
  }

  const readStoreBody = (kind: CascadeKind, body: Record<string, unknown>) => {
    const b = unifyShape(body) as Record<string, unknown>
    checkFields(b, STORE_ROOT[kind], STORE_WRITABLE, STORE_READ_ONLY)
    if (b.type !== undefined && b.type !== '' && String(b.type).toUpperCase() !== KIND_NAME[kind]) throw InvalidCascadeStore(`type of a ${STORE_ROOT[kind]} is ${KIND_NAME[kind]}, not ${shown(b.type)}`)
    return b
  }

  /** The connection fields of a body over `old` (the defaults GeoServer gives a new store). */
  const connection = (b: Record<string, unknown>, old: CascadeStoreConfig | undefined): CascadeStoreConfig => {
    const url = b.capabilitiesURL === undefined ? old?.capabilitiesURL : textField(b.capabilitiesURL, 'capabilitiesURL', InvalidCascadeStore)
    if (url === undefined) throw InvalidCascadeStore('capabilitiesURL is required')
    remote.check(url) // http(s), on MAPWARDEN_CASCADE_HOSTS
    const c: CascadeStoreConfig = {
      capabilitiesURL: url.trim(),
      maxConnections: b.maxConnections === undefined || b.maxConnections === '' ? old?.maxConnections ?? 6 : int(b.maxConnections, 'maxConnections', 1, 128),
      readTimeout: b.readTimeout === undefined || b.readTimeout === '' ? old?.readTimeout ?? 60 : int(b.readTimeout, 'readTimeout', 1, 3600),
      connectTimeout: b.connectTimeout === undefined || b.connectTimeout === '' ? old?.connectTimeout ?? 30 : int(b.connectTimeout, 'connectTimeout', 1, 3600),
      useConnectionPooling: b.useConnectionPooling === undefined || b.useConnectionPooling === '' ? old?.useConnectionPooling ?? true : bool(b.useConnectionPooling, 'useConnectionPooling', InvalidCascadeStore)
    }
    const user = b.user === undefined ? old?.user : textField(b.user, 'user', InvalidCascadeStore, 256)
    if (user !== undefined) c.user = user
    // The token GET showed, sent back: unchanged; '' removes the password.
    const password = b.password === undefined || b.password === old?.password ? old?.password : sealed(b.password)
    if (password !== undefined) c.password = password
    const dis = b.disableOnConnFailure === undefined || b.disableOnConnFailure === '' ? old?.disableOnConnFailure : bool(b.disableOnConnFailure, 'disableOnConnFailure', InvalidCascadeStore)
    if (dis !== undefined) c.disableOnConnFailure = dis
    return c
  }

  /** How a store's remote is called (its password opened only here, for the Authorization header). */
  const callOf = (s: CascadeStoreRow): RemoteCall => ({
    key: `${s.workspace}:${s.name}`,
    maxConnections: s.config.maxConnections,
    connectTimeout: s.config.connectTimeout,
    readTimeout: s.config.readTimeout,
    ...(s.config.user ? { user: s.config.user, password: s.config.password ? secrets.openSecret(s.config.password) ?? '' : '' } : {})
  })

  /**
   * One call to a store's remote. With disableOnConnFailure, a remote that cannot be reached marks the
   * store down (its layers read as disabled until it answers again, health.ts) and one that answers
   * marks it up; the failing request itself still answers the failure.
   */
  const reach = async (s: CascadeStoreRow, url: string, call = callOf(s)) => {
    try {
      const answer = await remote.get(url, call)
      health?.markUp(s.workspace, s.name)
      return answer
    } catch (err) {
      if (s.config.disableOnConnFailure === true && isMapwardenError(err) && err.code === CascadeRemoteUnreachable.code) health?.markDown(s.workspace, s.name)
      throw err
    }
  }

  /** The remote's capabilities document; an exception report (or anything but XML) is a 502 naming it. */
  const capabilitiesXml = async (s: CascadeStoreRow): Promise<{ url: string, xml: string }> => {
    const url = capabilitiesUrl(s.config.capabilitiesURL, s.kind)
    const answer = await reach(s, url)
    const head = answer.body.subarray(0, 2048).toString('utf8')
    if ((!/xml/i.test(answer.contentType) && !head.trimStart().startsWith('<')) || /<(\w+:)?(ServiceExceptionReport|ExceptionReport)\b/.test(head)) {
      throw CascadeRemoteException(shownUrl(url), await exceptionText(answer.body))
    }
    return { url, xml: answer.body.toString('utf8') }
  }
  const unreadable = (url: string, err: unknown): never => {
    if (isMapwardenError(err)) throw CascadeRemoteException(shownUrl(url), `its capabilities cannot be read: ${err.message}`)
    throw err
  }

  // A WMTS store's capabilities are read once per store state and kept ten minutes (every picture
  // needs its matrices); a store change, or a picture failing on what they said, reads them again.
  const wmtsCaps = new Map<string, { config: string, at: number, caps: Promise<WmtsCapabilities> }>()
  const wmtsCapabilitiesOf = async (s: CascadeStoreRow): Promise<WmtsCapabilities> => {
    const key = `${s.workspace}:${s.name}`
    const config = JSON.stringify(s.config)
    const hit = wmtsCaps.get(key)
    if (hit && hit.config === config && now().getTime() - hit.at < CAPABILITIES_KEPT_MS) return await hit.caps
    const caps = (async () => {
      const { url, xml } = await capabilitiesXml(s)
      try { return await wmtsCapabilities(xml) } catch (err) { return unreadable(url, err) }
    })()
    wmtsCaps.set(key, { config, at: now().getTime(), caps })
    caps.catch(() => { if (wmtsCaps.get(key)?.caps === caps) wmtsCaps.delete(key) })
    return await caps
  }

  /** The remote's layers, from its capabilities. */
  const capabilities = async (s: CascadeStoreRow): Promise<RemoteLayer[]> => {
    if (s.kind === 'wmts') {
      wmtsCaps.delete(`${s.workspace}:${s.name}`) // listing and publishing read them fresh
      return (await wmtsCapabilitiesOf(s)).layers
    }
    const { url, xml } = await capabilitiesXml(s)
    try { return await remoteLayers(xml) } catch (err) { return unreadable(url, err) }
  }

  /**
   * The picture of a cascaded WMTS layer: the covering tiles of the remote matrix whose pixels are the
   * coarsest not coarser than the picture's, in the layer's first format of PNG, JPEG or its own first,
   * composed into one mosaic (libvips) and handed to the render pool with where it lies, which
   * resamples it to the box and size (bilinear: an aligned box of the same resolution is the tiles
   * exactly). In a CRS the remote has a matrix set in, that set's tiles; in another (GeoServer
   * reprojects cascaded WMTS layers), the tiles of the first of its sets whose CRS the box can be
   * taken to, covering the box's envelope there, warped into the request's CRS by the render pool.
   */
  const wmtsImage = async (s: CascadeStoreRow, layer: CascadeLayerRow, req: RenderRequest): Promise<ImageJob> => {
    const caps = await wmtsCapabilitiesOf(s)
    const remoteLayer = caps.layers.find((l) => l.name === layer.nativeName)
    if (!remoteLayer) {
      wmtsCaps.delete(`${s.workspace}:${s.name}`)
      throw CascadeRemoteException(shownUrl(s.config.capabilitiesURL), `its capabilities no longer list layer ${shown(layer.nativeName)}`)
    }
    const crss = [...new Set(remoteLayer.matrixSets.map((l) => caps.matrixSets.get(l.id)?.crs).filter((c): c is string => c !== undefined))]
    const blank = (): ImageJob => ({ kind: 'image', layer: req.layer, width: req.width, height: req.height, data: new Uint8Array(0) })
    let found = matrixSetFor(caps, remoteLayer, req.crs)
    let box = req.bbox
    if (!found) {
      const via = crss.find((c) => isSupportedCrs(c, req.proj4Defs) && matrixSetFor(caps, remoteLayer, c) !== undefined)
      if (!via || !isSupportedCrs(req.crs, req.proj4Defs)) throw CascadeCrsUnsupported(req.layer, req.crs, crss.join(', ') || '(none)')
      found = matrixSetFor(caps, remoteLayer, via)!
      box = transformBbox(req.bbox, req.crs, via, req.proj4Defs)
    }
    if (!box.every(Number.isFinite) || box[0] >= box[2] || box[1] >= box[3]) return blank()
    const format = ['image/png', 'image/jpeg'].find((f) => remoteLayer.formats.includes(f) || remoteLayer.templates.has(f)) ?? remoteLayer.formats[0] ?? 'image/png'
    const plan = planTiles(found.set, found.link, box, req.width, req.height)
    // A remote pyramid with far-apart matrices could ask for a mosaic far larger than the picture.
    if (plan.cols * plan.rows > MAX_MOSAIC_TILES) throw InvalidCascadeLayer(`the picture of ${req.layer} would need ${plan.cols * plan.rows} tiles of the remote's matrix ${shown(plan.matrix.id)} (at most ${MAX_MOSAIC_TILES}): ask a smaller size or box`)
    if (plan.tiles.length === 0) return blank()
    const call = callOf(s)
    const { tileWidth: tw, tileHeight: th } = plan.matrix
    const tiles = await Promise.all(plan.tiles.map(async ({ row, col }) => {
      const url = tileUrl(caps, s.config.capabilitiesURL, remoteLayer, found.set.id, plan.matrix.id, row, col, format, remoteLayer.defaultStyle)
      const answer = await reach(s, url, call)
      if (!/^image\//i.test(answer.contentType)) throw CascadeRemoteException(shownUrl(url), await exceptionText(answer.body))
      // A tile larger than the matrix says is cut to it (the mosaic's cells are the matrix's).
      const input = await sharp(answer.body).ensureAlpha().extract({ left: 0, top: 0, width: tw, height: th }).png({ compressionLevel: 0 }).toBuffer()
        .catch(async () => await sharp(answer.body).ensureAlpha().png({ compressionLevel: 0 }).toBuffer())
      return { input, left: (col - plan.col0) * tw, top: (row - plan.row0) * th }
    }))
    const mosaic = await sharp({ create: { width: plan.cols * tw, height: plan.rows * th, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite(tiles).png({ compressionLevel: 1 }).toBuffer()
    const left = plan.matrix.topLeft[0] + plan.col0 * tw * plan.res
    const top = plan.matrix.topLeft[1] - plan.row0 * th * plan.res
    return {
      kind: 'image',
      layer: req.layer,
      width: req.width,
      height: req.height,
      data: new Uint8Array(mosaic.buffer, mosaic.byteOffset, mosaic.byteLength),
      warp: {
        crs: req.crs,
        bbox: req.bbox,
        sourceCrs: found.set.crs,
        sourceBbox: [left, top - plan.rows * th * plan.res, left + plan.cols * tw * plan.res, top],
        ...(req.proj4Defs ? { proj4Defs: req.proj4Defs } : {})
      }
    }
  }

  // A down store's probe: its capabilities answered (any answer of the server) brings its layers back.
  health?.setProbe(async (ws, name) => {
    const s = await rows.getStore(ws, name) as CascadeStoreRow | undefined
    if (!s || s.config.disableOnConnFailure !== true) return true
    try { await remote.get(capabilitiesUrl(s.config.capabilitiesURL, s.kind), callOf(s)) } catch (err) {
      if (isMapwardenError(err) && err.code === CascadeRemoteUnreachable.code) return false
    }
    return true
  })

  const names = (ls: CascadeLayerRow[]) => ls.map((l) => `${l.workspace}:${l.name}`)

  return {
    async listStores (ws: string, kind: CascadeKind): Promise<CascadeStoreRow[]> {
      await workspaces.get(ws)
      return await rows.listStores(ws, kind)
    },
    async getStore (ws: string, kind: CascadeKind, name: string): Promise<CascadeStoreRow> { return await requireStore(ws, kind, name) },

    /** POST: a new store; the URL is checked against the allow-list, the remote is not called (as GeoServer). */
    async createStore (wsName: string, kind: CascadeKind, body: Record<string, unknown>): Promise<string> {
      const ws = await workspaces.get(wsName)
      const b = readStoreBody(kind, body)
      const given = refName(b.workspace, 'workspace', InvalidCascadeStore)
      if (given !== undefined && given !== ws.name) throw InvalidCascadeStore(`the body names workspace ${shown(given)}, the URL ${shown(ws.name)}`)
      if (b.name === undefined || b.name === '') throw InvalidCascadeStore('name is required')
      const name = checkName(b.name, `${KIND_NAME[kind]} store`)
      const row: CascadeStoreRow = {
        workspace: ws.name,
        name,
        kind,
        enabled: b.enabled === undefined || b.enabled === '' ? true : bool(b.enabled, 'enabled', InvalidCascadeStore),
        createdAt: now().toISOString(),
        config: connection(b, undefined)
      }
      const d = textField(b.description, 'description', InvalidCascadeStore)
      if (d !== undefined) row.description = d
      await serialized(ws.name, () => rows.insertStore(row))
      return name
    },

    /** PUT: fields sent replace the stored ones; the password stays unless sent; name, workspace and type cannot change. */
    async updateStore (wsName: string, kind: CascadeKind, name: string, body: Record<string, unknown>): Promise<void> {
      const ws = await workspaces.get(wsName)
      const b = readStoreBody(kind, body)
      const layers = await serialized(ws.name, async () => {
        const old = await requireStore(ws.name, kind, name)
        if (b.name !== undefined && b.name !== '' && b.name !== name) throw CascadeChangeRefused('name', `${shown(name)} to ${shown(b.name)}`)
        const given = refName(b.workspace, 'workspace', InvalidCascadeStore)
        if (given !== undefined && given !== ws.name) throw CascadeChangeRefused('workspace', `${shown(ws.name)} to ${shown(given)}`)
        const row: CascadeStoreRow = {
          ...old,
          enabled: b.enabled === undefined || b.enabled === '' ? old.enabled : bool(b.enabled, 'enabled', InvalidCascadeStore),
          config: connection(b, old.config)
        }
        if (b.description !== undefined) {
          const d = textField(b.description, 'description', InvalidCascadeStore)
          if (d === undefined) delete row.description
          else row.description = d
        }
        await rows.updateStore(row)
        health?.markUp(ws.name, name) // judged again by its next call
        return await rows.listLayers(ws.name, name)
      })
      if (layers.length > 0) await layersChanged?.(names(layers), `${KIND_NAME[kind]} store ${ws.name}:${name} changed`)
    },

    /** DELETE: refused while the store has layers, unless `recurse` (they go with it). */
    async removeStore (wsName: string, kind: CascadeKind, name: string, recurse: boolean): Promise<void> {
      const ws = await workspaces.get(wsName)
      const layers = await serialized(ws.name, async () => {
        await requireStore(ws.name, kind, name)
        const published = await rows.listLayers(ws.name, name)
        if (!recurse && published.length > 0) throw CascadeStoreNotEmpty(name, published.length)
        await rows.deleteStore(ws.name, name)
        health?.markUp(ws.name, name)
        return published
      })
      if (layers.length > 0) await layersRemoved?.(names(layers))
    },

    async listLayers (ws: string, kind: CascadeKind, store?: string): Promise<CascadeLayerRow[]> {
      if (store !== undefined) await requireStore(ws, kind, store)
      else await workspaces.get(ws)
      return (await rows.listLayers(ws, store)).filter((l) => l.kind === kind)
    },
    /** The names of the remote's layers not yet published from this store (list=available). */
    async availableLayers (ws: string, kind: CascadeKind, store: string): Promise<string[]> {
      const s = await requireStore(ws, kind, store)
      const published = new Set((await rows.listLayers(ws, store)).map((l) => l.nativeName))
      return (await capabilities(s)).map((l) => l.name).filter((n) => !published.has(n))
    },
    async getLayer (ws: string, kind: CascadeKind, store: string | undefined, name: string): Promise<CascadeLayerRow> {
      return await requireLayer(ws, kind, store, name)
    },

    /** POST: publishes the remote layer `nativeName` (default: `name`) as layer `name`; the remote's
     *  capabilities must list it (its title and bounds are taken from there unless sent). */
    async createLayer (wsName: string, kind: CascadeKind, store: string, body: Record<string, unknown>): Promise<string> {
      const ws = await workspaces.get(wsName)
      const s = await requireStore(ws.name, kind, store)
      const b = unifyShape(body) as Record<string, unknown>
      checkFields(b, LAYER_ROOT[kind], LAYER_WRITABLE)
      if (b.name === undefined || b.name === '') throw InvalidCascadeLayer('name is required')
      const name = checkName(b.name, `${KIND_NAME[kind]} layer`)
      const nativeName = textField(b.nativeName, 'nativeName', InvalidCascadeLayer, 512) ?? name
      const ns = refName(b.namespace, 'namespace', InvalidCascadeLayer)
      if (ns !== undefined && ns !== ws.name) throw InvalidCascadeLayer(`the body names namespace ${shown(ns)}, the URL workspace ${shown(ws.name)}`)
      const st = refName(b.store, 'store', InvalidCascadeLayer)
      if (st !== undefined && st !== store && st !== `${ws.name}:${store}`) throw InvalidCascadeLayer(`the body names store ${shown(st)}, the URL ${shown(store)}`)
      if (!s.enabled) throw CascadeStoreDisabled(store, `${ws.name}:${name}`)
      const found = (await capabilities(s)).find((l) => l.name === nativeName)
      if (!found) throw InvalidCascadeLayer(`the remote server of store ${store} has no layer named ${shown(nativeName)} (GET .../layers?list=available names those it has)`)
      const srs = textField(b.srs, 'srs', InvalidCascadeLayer, 64) ?? 'EPSG:4326'
      if (!/^EPSG:\d+$/i.test(srs)) throw InvalidCascadeLayer(`srs must be an EPSG code such as EPSG:4326: ${shown(srs)}`)
      const row: CascadeLayerRow = {
        workspace: ws.name,
        store,
        name,
        kind,
        nativeName,
        srs: srs.toUpperCase(),
        config: { source: kind, enabled: b.enabled === undefined || b.enabled === '' ? true : bool(b.enabled, 'enabled', InvalidCascadeLayer) }
      }
      const title = textField(b.title, 'title', InvalidCascadeLayer) ?? found.title
      if (title !== undefined) row.title = title
      const abstract = textField(b.abstract ?? b.description, 'abstract', InvalidCascadeLayer) ?? found.abstract
      if (abstract !== undefined) row.config.abstract = abstract
      const kw = keywords(b.keywords)
      if (kw) row.config.keywords = kw
      const ll = envelope(b.latLonBoundingBox, 'latLonBoundingBox') ?? found.latLonBbox
      if (ll) row.latLonBbox = ll
      const nb = envelope(b.nativeBoundingBox, 'nativeBoundingBox')
      if (nb) row.config.nativeBbox = nb
      if (kind === 'wms') row.config = remoteSettings(b, row.config, found)
      else if (REMOTE_FIELDS.some((f) => b[f] !== undefined && b[f] !== '')) throw InvalidCascadeLayer(`${REMOTE_FIELDS.find((f) => b[f] !== undefined && b[f] !== '')} is a setting of cascaded WMS layers; a WMTS layer is drawn from the remote's default style and first of PNG, JPEG`)
      await serialized(ws.name, () => rows.insertLayer(row))
      return name
    },

    /** PUT: title, abstract, keywords, bounds, srs, enabled; name and nativeName stay. */
    async updateLayer (wsName: string, kind: CascadeKind, store: string | undefined, name: string, body: Record<string, unknown>): Promise<void> {
      const ws = await workspaces.get(wsName)
      const b = unifyShape(body) as Record<string, unknown>
      checkFields(b, LAYER_ROOT[kind], LAYER_WRITABLE)
      await serialized(ws.name, async () => {
        const old = await requireLayer(ws.name, kind, store, name)
        if (b.name !== undefined && b.name !== '' && b.name !== name) throw CascadeChangeRefused('name', `${shown(name)} to ${shown(b.name)}: publish the remote layer again under the new name`)
        if (b.nativeName !== undefined && b.nativeName !== '' && b.nativeName !== old.nativeName) throw CascadeChangeRefused('nativeName', `${shown(old.nativeName)} to ${shown(b.nativeName)}`)
        const row: CascadeLayerRow = { ...old, config: { ...old.config } }
        if (b.title !== undefined) { const t = textField(b.title, 'title', InvalidCascadeLayer); if (t === undefined) delete row.title; else row.title = t }
        if (b.abstract !== undefined || b.description !== undefined) {
          const a = textField(b.abstract ?? b.description, 'abstract', InvalidCascadeLayer)
          if (a === undefined) delete row.config.abstract
          else row.config.abstract = a
        }
        const kw = keywords(b.keywords)
        if (kw) row.config.keywords = kw
        const ll = envelope(b.latLonBoundingBox, 'latLonBoundingBox')
        if (ll) row.latLonBbox = ll
        const nb = envelope(b.nativeBoundingBox, 'nativeBoundingBox')
        if (nb) row.config.nativeBbox = nb
        if (b.srs !== undefined && b.srs !== '') {
          const srs = String(b.srs)
          if (!/^EPSG:\d+$/i.test(srs)) throw InvalidCascadeLayer(`srs must be an EPSG code such as EPSG:4326: ${shown(srs)}`)
          row.srs = srs.toUpperCase()
        }
        if (b.enabled !== undefined && b.enabled !== '') row.config.enabled = bool(b.enabled, 'enabled', InvalidCascadeLayer)
        if (REMOTE_FIELDS.some((f) => b[f] !== undefined)) {
          if (kind !== 'wms') throw InvalidCascadeLayer(`${REMOTE_FIELDS.find((f) => b[f] !== undefined)} is a setting of cascaded WMS layers`)
          // Checked against what the remote offers now.
          const found = (await capabilities(await requireStore(ws.name, kind, old.store))).find((l) => l.name === old.nativeName)
          if (!found) throw InvalidCascadeLayer(`the remote server of store ${old.store} no longer has layer ${shown(old.nativeName)}`)
          row.config = remoteSettings(b, row.config, found)
        }
        await rows.updateLayer(row)
      })
      await layersChanged?.([`${ws.name}:${name}`], `${KIND_NAME[kind]} layer ${ws.name}:${name} changed`)
    },

    /** DELETE: the resource and its published layer go together, so `recurse` is required (as GeoServer's "referenced by layer"). */
    async removeLayer (wsName: string, kind: CascadeKind, store: string | undefined, name: string, recurse: boolean): Promise<void> {
      const ws = await workspaces.get(wsName)
      await serialized(ws.name, async () => {
        await requireLayer(ws.name, kind, store, name)
        if (!recurse) throw CascadeChangeRefused('layers', `${KIND_NAME[kind]} layer ${name} is published as layer ${ws.name}:${name}; delete with recurse=true`)
        await rows.deleteLayer(ws.name, name)
      })
      await layersRemoved?.([`${ws.name}:${name}`])
    },

    /**
     * The picture of a cascaded WMS layer for a render request: the remote's GetMap (WMS 1.1.1, so
     * x/y order in every CRS; PNG, transparent) of the box, size and CRS asked. An exception report
     * or anything but an image is a 502 naming the remote's message; nothing of it is drawn or cached.
     */
    async mapImage (req: RenderRequest): Promise<ImageJob> {
      const i = req.layer.indexOf(':')
      const ws = req.layer.slice(0, i)
      const layer = await rows.getLayer(ws, req.layer.slice(i + 1))
      if (!layer) throw CascadeLayerNotFound('WMS', req.layer, '*', ws)
      const s = await rows.getStore(ws, layer.store) as CascadeStoreRow | undefined
      if (!s || s.kind !== layer.kind) throw CascadeStoreNotFound(KIND_NAME[layer.kind], layer.store, ws)
      if (!s.enabled) throw CascadeStoreDisabled(s.name, req.layer)
      if (layer.kind === 'wmts') return await wmtsImage(s, layer, req)
      // The format the client asked when the layer forwards it (selectedRemoteFormats), else preferredFormat.
      const asked = req.remote?.format?.split(';')[0].trim()
      const format = asked !== undefined && layer.config.selectedRemoteFormats?.includes(asked) ? asked : layer.config.preferredFormat ?? 'image/png'
      const url = wmsUrl(s.config.capabilitiesURL, {
        SERVICE: 'WMS',
        VERSION: '1.1.1',
        REQUEST: 'GetMap',
        LAYERS: layer.nativeName,
        // STYLES was checked against the remote's styles where the map was asked for (wms/map-spec.ts).
        STYLES: req.remote?.style ?? layer.config.forcedRemoteStyle ?? '',
        SRS: req.crs,
        BBOX: req.bbox.join(','),
        WIDTH: String(req.width),
        HEIGHT: String(req.height),
        FORMAT: format,
        TRANSPARENT: 'TRUE',
        EXCEPTIONS: 'application/vnd.ogc.se_xml',
        ...(req.time !== undefined ? { TIME: req.time } : {}),
        ...(req.elevation !== undefined ? { ELEVATION: req.elevation } : {})
      })
      const answer = await reach(s, url)
      if (!/^image\//i.test(answer.contentType)) throw CascadeRemoteException(shownUrl(url), await exceptionText(answer.body))
      return { kind: 'image', layer: req.layer, width: req.width, height: req.height, data: new Uint8Array(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength) }
    },

    /** GetFeatureInfo of a cascaded WMS layer: the remote's answer for the same map and pixel, as it came. */
    async featureInfo (qualified: string, q: { crs: string, bbox: [number, number, number, number], width: number, height: number, i: number, j: number, infoFormat: string, featureCount: number }): Promise<{ data: Buffer, contentType: string }> {
      const i = qualified.indexOf(':')
      const ws = qualified.slice(0, i)
      const layer = await rows.getLayer(ws, qualified.slice(i + 1))
      if (!layer || layer.kind !== 'wms') throw CascadeLayerNotFound('WMS', qualified, '*', ws)
      const s = await rows.getStore(ws, layer.store) as CascadeStoreRow | undefined
      if (!s || s.kind !== 'wms') throw CascadeStoreNotFound('WMS', layer.store, ws)
      if (!s.enabled) throw CascadeStoreDisabled(s.name, qualified)
      const url = wmsUrl(s.config.capabilitiesURL, {
        SERVICE: 'WMS',
        VERSION: '1.1.1',
        REQUEST: 'GetFeatureInfo',
        LAYERS: layer.nativeName,
        QUERY_LAYERS: layer.nativeName,
        STYLES: '',
        SRS: q.crs,
        BBOX: q.bbox.join(','),
        WIDTH: String(q.width),
        HEIGHT: String(q.height),
        X: String(q.i),
        Y: String(q.j),
        INFO_FORMAT: q.infoFormat,
        FEATURE_COUNT: String(q.featureCount),
        EXCEPTIONS: 'application/vnd.ogc.se_xml'
      })
      const answer = await reach(s, url)
      if (/vnd\.ogc\.se_xml/i.test(answer.contentType) || (/xml/i.test(answer.contentType) && /ServiceExceptionReport/.test(answer.body.subarray(0, 2048).toString('utf8')))) {
        throw CascadeRemoteException(shownUrl(url), await exceptionText(answer.body))
      }
      return { data: answer.body, contentType: answer.contentType || 'text/plain' }
    }
  }
}
export type CascadeService = ReturnType<typeof createCascadeService>
