// GeoServer's service settings ({base}/rest/services/{wms,wmts,wfs}/settings and the workspace-local
// .../services/<svc>/workspaces/<ws>/settings): what mapwarden keeps of WMSInfo, WMTSInfo and WFSInfo.
// Each document lives in the store and in memory here; `get(service, workspace?)` is the one getter
// the services read (WMS, WMTS and WFS capabilities and their enabled check; WFS its maxFeatures), answered
// from memory, re-read when another instance announces a change or on a reload.
// A field is kept only when mapwarden applies it (or, for WFS, the WFS reads it): a value it cannot
// apply is refused with a 400 that names the field, and nothing changes.
import type { ServiceSettingsStore } from './store.js'
import { InvalidBody, ServiceSettingsNotFound } from '../errors.js'
import { onlyFields } from '../body-fields.js'
import { createKeyedQueue } from '../keyed-queue.js'
import { epsgEntry } from '../render/epsg.js'

export const SERVICE_NAMES = ['wms', 'wmts', 'wfs'] as const
export type ServiceName = typeof SERVICE_NAMES[number]

export interface Watermark { enabled: boolean, position: string, transparency: number }

/** ServiceInfo's fields (every service), then WMSInfo's and WFSInfo's own. */
export interface ServiceSettings {
  enabled: boolean
  /** The service's name: in the settings and in the disabled-service message ("Service WMS is disabled"). */
  name: string
  title?: string
  maintainer?: string
  /** The abstract (GeoServer's XStream field name). */
  abstrct?: string
  accessConstraints?: string
  fees?: string
  keywords: string[]
  citeCompliant: boolean
  /** Written as the capabilities' service OnlineResource (WMS, WFS 1.0.0) or ProviderSite (WMTS, WFS 1.1.0/2.0.0); unset: the service URL. */
  onlineResource?: string
  schemaBaseURL: string
  verbose: boolean
  // WMS
  watermark?: Watermark
  interpolation?: string
  maxBuffer?: number
  maxRequestMemory?: number
  maxRenderingTime?: number
  maxRenderingErrors?: number
  /** GeoServer's limited SRS list: the codes the capabilities list ("4326" or "EPSG:4326", as sent); empty: every code. */
  srs?: string[]
  /** With a limited list: a BoundingBox in each of its CRSs for every layer. */
  bboxForEachCRS?: boolean
  // WFS (applied by the WFS; serviceLevel BASIC (read-only), TRANSACTIONAL (with Transaction) or COMPLETE (with locks too),
  // the three flags false are the only values kept)
  serviceLevel?: string
  maxFeatures?: number
  featureBounding?: boolean
  canonicalSchemaLocation?: boolean
  encodeFeatureMember?: boolean
  hitsIgnoreMaxFeatures?: boolean
}

/** The protocol versions each service speaks (GeoServer's `versions`; read-only here). */
export const SERVICE_VERSIONS: Record<ServiceName, string[]> = { wms: ['1.1.1', '1.3.0'], wmts: ['1.0.0'], wfs: ['1.0.0', '1.1.0', '2.0.0'] }
export const SCHEMA_BASE_URL = 'http://schemas.opengis.net'
const WATERMARK_POSITIONS = ['TOP_LEFT', 'TOP_CENTER', 'TOP_RIGHT', 'MID_LEFT', 'MID_CENTER', 'MID_RIGHT', 'BOT_LEFT', 'BOT_CENTER', 'BOT_RIGHT']
const SERVICE_LEVELS = ['BASIC', 'TRANSACTIONAL', 'COMPLETE']

const common = (name: string, title: string): ServiceSettings => ({
  enabled: true, name, title, keywords: [], citeCompliant: false, schemaBaseURL: SCHEMA_BASE_URL, verbose: false
})

/** What a service has before any PUT: what its capabilities said before these settings existed. */
export const DEFAULT_SERVICE_SETTINGS: Record<ServiceName, ServiceSettings> = {
  wms: {
    ...common('WMS', 'mapwarden Web Map Service'),
    abstrct: 'Maps of the image mosaics published by mapwarden, rendered by the same renderer as its tiles.',
    accessConstraints: 'NONE',
    fees: 'NONE',
    keywords: ['WMS', 'GEOSERVER'],
    srs: [],
    bboxForEachCRS: false,
    watermark: { enabled: false, position: 'BOT_RIGHT', transparency: 100 },
    interpolation: 'Nearest',
    maxBuffer: 0,
    maxRequestMemory: 0,
    maxRenderingTime: 0,
    maxRenderingErrors: 0
  },
  wmts: common('WMTS', 'mapwarden Web Map Tile Service'),
  wfs: {
    ...common('WFS', 'mapwarden Web Feature Service'),
    abstrct: 'The vector layers of this server as features: GML 3.2, GML 3.1.1, GML 2, GeoJSON and CSV.',
    accessConstraints: 'NONE',
    fees: 'NONE',
    keywords: ['WFS', 'GEOSERVER'],
    // Transactions and locks on, as GeoServer's default: the layer rules' `w` guards them.
    serviceLevel: 'COMPLETE',
    maxFeatures: 1000000,
    featureBounding: false,
    canonicalSchemaLocation: false,
    encodeFeatureMember: false,
    hitsIgnoreMaxFeatures: false
  }
}

const COMMON_FIELDS = ['enabled', 'name', 'title', 'maintainer', 'abstrct', 'accessConstraints', 'fees', 'versions', 'keywords', 'citeCompliant', 'onlineResource', 'schemaBaseURL', 'verbose']
const OWN_FIELDS: Record<ServiceName, string[]> = {
  wms: ['srs', 'bboxForEachCRS', 'watermark', 'interpolation', 'maxBuffer', 'maxRequestMemory', 'maxRenderingTime', 'maxRenderingErrors'],
  wmts: [],
  wfs: ['serviceLevel', 'maxFeatures', 'featureBounding', 'canonicalSchemaLocation', 'encodeFeatureMember', 'hitsIgnoreMaxFeatures']
}
/** Text fields "" clears (back to none, not to the default). */
const CLEARABLE = ['title', 'maintainer', 'abstrct', 'accessConstraints', 'fees', 'onlineResource'] as const

/** Sent back by a GET-modify-PUT and not applied: GeoServer's object id, the workspace (the path says it), an empty metadataLink. */
const READ_ONLY = ['id', 'workspace', 'metadataLink']

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const text = (v: unknown): string | undefined => typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined
const shown = (v: unknown) => JSON.stringify(String(typeof v === 'object' ? JSON.stringify(v) : v).slice(0, 40))

function flag (v: unknown, field: string): boolean {
  if (v === true || v === 'true') return true
  if (v === false || v === 'false') return false
  throw InvalidBody(`${field} must be true or false, got ${shown(v)}`)
}

function integer (v: unknown, field: string, max = 2 ** 31 - 1): number {
  const s = text(v)?.trim()
  const n = s !== undefined && /^[0-9]{1,10}$/.test(s) ? Number(s) : NaN
  if (!(n >= 0 && n <= max)) throw InvalidBody(`${field} must be an integer from 0 to ${max}, got ${shown(v)}`)
  return n
}

function words (v: unknown, field: string, max = 65536): string | undefined {
  const s = text(v)
  if (s === undefined) throw InvalidBody(`${field} must be text`)
  if (s.length > max) throw InvalidBody(`${field} is longer than ${max} characters`)
  return s === '' ? undefined : s
}

function url (v: unknown, field: string): string | undefined {
  const s = text(v)?.trim()
  if (s === undefined) throw InvalidBody(`${field} must be a URL`)
  if (s === '') return undefined
  let u: URL | undefined
  try { u = new URL(s) } catch {}
  if (!u || !/^https?:$/.test(u.protocol) || /[\s<>"]/.test(s)) throw InvalidBody(`${field} must be an http or https URL, got ${shown(s)}`)
  return s
}

/** A list as XML (`<keywords><string>a</string></keywords>`: one element is not an array) or JSON sends it. */
function list (v: unknown, item: string, field: string): unknown[] {
  if (v === '' || v === null) return []
  if (Array.isArray(v)) return v
  if (isObject(v)) {
    onlyFields(v, field, [item])
    const inner = v[item]
    return inner === undefined || inner === '' ? [] : Array.isArray(inner) ? inner : [inner]
  }
  throw InvalidBody(`${field} must be a list of ${item}`)
}

function keywords (v: unknown, field: string): string[] {
  const out: string[] = []
  for (const k of list(v, 'string', field)) {
    const s = text(k)
    if (s === undefined || s.trim() === '') throw InvalidBody(`${field} must be a list of non-empty strings, got ${shown(k)}`)
    if (s.length > 1024) throw InvalidBody(`${field}: a keyword is longer than 1024 characters`)
    out.push(s)
  }
  if (out.length > 256) throw InvalidBody(`${field}: more than 256 keywords`)
  return out
}

/** The EPSG code of a limited SRS list's entry (GeoServer takes "4326" and "EPSG:4326"), when the registry knows it. */
export function srsCode (entry: string): string | undefined {
  const m = /^(?:EPSG:)?(\d{1,9})$/i.exec(entry.trim())
  if (!m) return undefined
  const n = Number(m[1])
  return n === 4326 || n === 3857 || n === 900913 || epsgEntry(n) !== undefined ? `EPSG:${n}` : undefined
}

function srsList (v: unknown, field: string): string[] {
  const out: string[] = []
  for (const e of list(v, 'string', field)) {
    const s = text(e)?.trim()
    if (s === undefined || srsCode(s) === undefined) throw InvalidBody(`${field}: ${shown(e)} is not an EPSG code the server knows (4326 or EPSG:4326)`)
    if (!out.some((o) => srsCode(o) === srsCode(s))) out.push(s)
  }
  if (out.length > 10000) throw InvalidBody(`${field}: more than 10000 codes`)
  return out
}

/** Only the values mapwarden applies: `allowed` names them, `why` says what a client would miss. */
function only<T> (value: T, allowed: T[], field: string, why: string): T {
  if (!allowed.includes(value)) throw InvalidBody(`${field} ${JSON.stringify(value)} is not supported: ${why}`)
  return value
}

/** The settings with `input`'s fields applied (partial, as GeoServer copies the fields sent). */
export function mergeServiceSettings (service: ServiceName, old: ServiceSettings, input: Record<string, unknown>): ServiceSettings {
  onlyFields(input, service, [...COMMON_FIELDS, ...OWN_FIELDS[service]], READ_ONLY)
  const f = (name: string) => `${service} ${name}`
  const next: ServiceSettings = { ...old, keywords: [...old.keywords] }
  if (input.enabled !== undefined) next.enabled = flag(input.enabled, f('enabled'))
  if (input.name !== undefined) {
    const n = words(input.name, f('name'), 64)
    if (n === undefined || /[\s<>&"']/.test(n)) throw InvalidBody(`${f('name')} must be a name without spaces, got ${shown(input.name)}`)
    next.name = n
  }
  for (const k of ['title', 'maintainer', 'abstrct', 'accessConstraints', 'fees'] as const) {
    if (input[k] !== undefined) next[k] = words(input[k], f(k), k === 'abstrct' ? 65536 : 4096)
  }
  if (input.versions !== undefined) {
    const sent = list(input.versions, 'org.geotools.util.Version', f('versions')).map((v) => isObject(v) ? text(v.version) : text(v))
    const served = SERVICE_VERSIONS[service]
    if (sent.length !== served.length || !served.every((v) => sent.includes(v))) {
      throw InvalidBody(`${f('versions')} are read-only: ${service.toUpperCase()} ${served.join(' and ')} are served, got ${shown(sent.join(', '))}`)
    }
  }
  if (input.keywords !== undefined) next.keywords = keywords(input.keywords, f('keywords'))
  if (input.citeCompliant !== undefined) next.citeCompliant = only(flag(input.citeCompliant, f('citeCompliant')), [false], f('citeCompliant'), 'mapwarden has no CITE-strict mode')
  if (input.onlineResource !== undefined) next.onlineResource = url(input.onlineResource, f('onlineResource'))
  if (input.schemaBaseURL !== undefined) next.schemaBaseURL = only(text(input.schemaBaseURL)?.trim().replace(/\/+$/, '') ?? '', [SCHEMA_BASE_URL], f('schemaBaseURL'), `the documents mapwarden writes refer to the schemas at ${SCHEMA_BASE_URL}`)
  if (input.verbose !== undefined) next.verbose = only(flag(input.verbose, f('verbose')), [false], f('verbose'), 'the service documents are always written indented')
  if (service === 'wms') {
    // Applied by the capabilities (services/wms/capabilities.ts); GetMap takes every code still, as GeoServer does.
    if (input.srs !== undefined) next.srs = srsList(input.srs, f('srs'))
    if (input.bboxForEachCRS !== undefined) next.bboxForEachCRS = flag(input.bboxForEachCRS, f('bboxForEachCRS'))
    if (input.watermark !== undefined && input.watermark !== '') {
      if (!isObject(input.watermark)) throw InvalidBody(`${f('watermark')} must be an object`)
      onlyFields(input.watermark, 'watermark', ['enabled', 'position', 'transparency'])
      const w = { ...old.watermark! }
      const m = input.watermark
      if (m.enabled !== undefined) w.enabled = only(flag(m.enabled, f('watermark enabled')), [false], f('watermark enabled'), 'mapwarden draws no watermark')
      if (m.position !== undefined) {
        const p = text(m.position) ?? ''
        if (!WATERMARK_POSITIONS.includes(p)) throw InvalidBody(`${f('watermark position')} must be one of ${WATERMARK_POSITIONS.join(', ')}, got ${shown(m.position)}`)
        w.position = p
      }
      if (m.transparency !== undefined) w.transparency = integer(m.transparency, f('watermark transparency'), 100)
      next.watermark = w
    }
    // Applied by GetMap (services/wms/get-map.ts): a map whose RGBA surface needs more KiB is refused.
    if (input.maxRequestMemory !== undefined) next.maxRequestMemory = integer(input.maxRequestMemory, f('maxRequestMemory'))
    if (input.interpolation !== undefined) {
      const i = text(input.interpolation) ?? ''
      if (!['Nearest', 'Bilinear', 'Bicubic'].includes(i)) throw InvalidBody(`${f('interpolation')} must be Nearest, Bilinear or Bicubic, got ${shown(input.interpolation)}`)
      next.interpolation = only(i, ['Nearest'], f('interpolation'), 'the renderer resamples by nearest neighbour')
    }
    // The render entry (services/render/renderer.ts) has no deadline or error count to hand these
    // to: 0 (no limit, GeoServer's meaning) is the one value that is true.
    const limits: Array<[keyof ServiceSettings, string]> = [
      ['maxBuffer', 'the renderer draws rasters only, with no symbolizer buffer'],
      ['maxRenderingTime', 'the renderer has no per-request time limit'],
      ['maxRenderingErrors', 'the renderer has no rendering error count']
    ]
    for (const [k, why] of limits) {
      if (input[k] !== undefined) (next as unknown as Record<string, number>)[k] = only(integer(input[k], f(k)), [0], f(k), `${why}; 0 means no limit`)
    }
  }
  if (service === 'wfs') {
    if (input.serviceLevel !== undefined) {
      const l = text(input.serviceLevel) ?? ''
      if (!SERVICE_LEVELS.includes(l)) throw InvalidBody(`${f('serviceLevel')} must be one of ${SERVICE_LEVELS.join(', ')}, got ${shown(input.serviceLevel)}`)
      next.serviceLevel = l
    }
    // Applied by GetFeature (services/wfs): at most this many features (0: no limit), and not more
    // than MAPWARDEN_WFS_MAX_FEATURES; hits count at most as many unless hitsIgnoreMaxFeatures.
    if (input.maxFeatures !== undefined) next.maxFeatures = integer(input.maxFeatures, f('maxFeatures'))
    if (input.hitsIgnoreMaxFeatures !== undefined) next.hitsIgnoreMaxFeatures = flag(input.hitsIgnoreMaxFeatures, f('hitsIgnoreMaxFeatures'))
    const unapplied: Array<[keyof ServiceSettings, string]> = [
      ['featureBounding', 'the WFS writes no gml:boundedBy per feature'],
      ['canonicalSchemaLocation', 'the WFS points to the schemas of its own DescribeFeatureType'],
      ['encodeFeatureMember', 'WFS 1.1.0 GML 3 answers are written with gml:featureMembers']
    ]
    for (const [k, why] of unapplied) {
      if (input[k] !== undefined) (next as unknown as Record<string, boolean>)[k] = only(flag(input[k], f(k)), [false], f(k), why)
    }
  }
  for (const k of CLEARABLE) if (next[k] === undefined) delete next[k]
  return next
}

/** The stored form: a cleared text field is kept as "" so that a default does not come back. */
function serialize (s: ServiceSettings): string {
  const out: Record<string, unknown> = { ...s }
  for (const k of CLEARABLE) if (out[k] === undefined) out[k] = ''
  return JSON.stringify(out)
}

function parseStored (service: ServiceName, body: string | undefined): ServiceSettings {
  const defaults = DEFAULT_SERVICE_SETTINGS[service]
  if (body === undefined) return structuredClone(defaults)
  const out = { ...structuredClone(defaults), ...(JSON.parse(body) as Partial<ServiceSettings>) }
  for (const k of CLEARABLE) if (out[k] === '') delete out[k]
  return out
}

const keyOf = (service: ServiceName, workspace = '') => `${service}@${workspace}`

export function createServiceSettings ({ store }: { store: ServiceSettingsStore }) {
  // Global settings by service; workspaces' own settings by service@workspace.
  let current = new Map<string, ServiceSettings>()
  // Changes and reloads run one at a time: a reload that read the rows before a change committed
  // must not install them after that change (the change would be lost until the next one).
  const serialized = createKeyedQueue()
  const oneAtATime = <T>(fn: () => Promise<T>): Promise<T> => serialized('services', fn)

  const globalOf = (service: ServiceName) => current.get(keyOf(service)) ?? DEFAULT_SERVICE_SETTINGS[service]

  return {
    /** Reads the stored settings (at start, on a reload, when another instance changed them). */
    reload: (): Promise<void> => oneAtATime(async () => {
      const next = new Map<string, ServiceSettings>()
      for (const row of await store.readAll()) {
        if (!(SERVICE_NAMES as readonly string[]).includes(row.service)) continue
        next.set(keyOf(row.service as ServiceName, row.workspace), parseStored(row.service as ServiceName, row.body))
      }
      current = next
    }),
    /**
     * The settings a service runs with: a workspace's own when it has them (its virtual service,
     * {base}/<ws>/wms), else the global ones. The one getter WMS, WMTS and WFS read.
     */
    get (service: ServiceName, workspace?: string): ServiceSettings {
      return (workspace !== undefined ? current.get(keyOf(service, workspace)) : undefined) ?? globalOf(service)
    },
    /** A workspace's own settings, undefined when it has none. */
    local (service: ServiceName, workspace: string): ServiceSettings | undefined {
      return current.get(keyOf(service, workspace))
    },
    /** PUT: the fields under the root (`wms`, `wmts`, `wfs`), partial. A workspace's first PUT starts from the global settings. */
    update: (service: ServiceName, input: Record<string, unknown>, workspace?: string): Promise<ServiceSettings> => oneAtATime(async () => {
      const ws = workspace ?? ''
      const body = await store.change(service, ws, (stored) => {
        const old = stored !== undefined ? parseStored(service, stored) : structuredClone(globalOf(service))
        return serialize(mergeServiceSettings(service, old, input))
      })
      const next = new Map(current)
      next.set(keyOf(service, ws), parseStored(service, body))
      current = next
      return next.get(keyOf(service, ws))!
    }),
    /** DELETE of a workspace's own settings: its service follows the global ones again. */
    remove: (service: ServiceName, workspace: string): Promise<void> => oneAtATime(async () => {
      if (!(await store.remove(service, workspace)) && !current.has(keyOf(service, workspace))) throw ServiceSettingsNotFound(service.toUpperCase(), workspace)
      const next = new Map(current)
      next.delete(keyOf(service, workspace))
      current = next
    }),
    /** A removed workspace's own settings go with it. */
    workspaceRemoved: (workspace: string): Promise<void> => oneAtATime(async () => {
      await store.remove(undefined, workspace)
      const next = new Map(current)
      for (const s of SERVICE_NAMES) next.delete(keyOf(s, workspace))
      current = next
    })
  }
}
export type ServiceSettingsService = ReturnType<typeof createServiceSettings>
