// Settings from plugin options, then MAPWARDEN_* environment variables, then defaults.
// The only file that reads process.env. Every setting is validated here, at start, with a
// message that names the setting and the bad value.
import path from 'node:path'
import { parseFaultList, type FaultRule } from '../../services/faults.js'
import { passwordWeakness } from '../../services/security/accounts.js'

export interface MapwardenConfig {
  port: number
  host: string
  basePath: string
  dataDir: string
  databaseUrl?: string        // postgres://... : every store in PostgreSQL (several instances share it); unset: SQLite in dataDir
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  geoserverVersion: string    // the GeoServer release whose REST behaviour mapwarden follows (rest/about/version)
  bodyLimit: number           // XML, JSON, SLD and text bodies, bytes
  uploadLimit: number         // ZIP and other streamed uploads, bytes on the wire
  zipMaxEntries: number
  zipMaxBytes: number         // total uncompressed size of one archive
  workerThreads: number       // render worker threads (Piscina pool size)
  renderNice: number          // nice value of the render threads and the other background threads (Linux); 0 = untouched
  maxSeedThreads: number      // largest threadCount a seed request may ask for
  taskSlots: number           // seed tasks that run at once; more wait as PENDING
  tileQueue: number           // on-demand tile renders that may wait for a render thread (past it: 503)
  metatileWait: number        // seconds a tile request waits for a metatile another instance renders, then draws it itself
  jpegQuality: number         // quality of JPEG (and WebP) tiles, 1-100
  seedPyramid: boolean        // seeds of several levels build the upper levels from the level below
  wmsMaxSize: number          // largest WIDTH and HEIGHT of a WMS GetMap, pixels
  wfsMaxFeatures: number      // most features one WFS GetFeature answers
  wmsMaxFeatures: number      // most features of one vector layer one map draws
  maxPendingTasks: number     // past this, seed requests are answered 429
  resumeTasks: boolean        // seed tasks pending or running at a stop resume after the next start
  harvestRoots: string[]      // absolute directories that external.imagemosaic may read
  blobStoreRoots: string[]    // absolute directories GeoWebCache's file blob stores may be created under
  remoteUploadHosts: string[] // hosts url.* uploads may fetch from over http(s); empty: none
  remoteUploadAllowPrivate: boolean // test only: url.* uploads may reach loopback and private addresses
  remoteUploadTimeout: number // seconds a url.* upload's remote transfer may take
  cascadeHosts: string[] // hosts cascaded WMS and WMTS stores may call; empty: none
  cascadeRetrySeconds: number // seconds before a store disabled by disableOnConnFailure asks its remote again
  adminPassword?: string      // used once, on first start with an empty catalog
  allowWeakPasswords: boolean // throwaway test servers: short and well-known passwords accepted, with a warning at every start
  authCacheSeconds: number    // how long a verified password is remembered (0 = never)
  tileMaxAge: number          // Cache-Control max-age of tiles, seconds
  bodyMinRate: number         // bytes/s a request body must average (over 5 s windows)
  bodyTimeout: number         // seconds to receive a request body (uploads: uploadTimeout)
  uploadTimeout: number       // seconds to receive a ZIP upload
  maxConnectionsPerAddress: number // open connections per client address (0: no cap)
  requireHttps: boolean       // refuse Basic credentials over plain HTTP (behind a TLS proxy: x-forwarded-proto)
  trustedOrigins: string[]    // browser origins besides the server's own that may send state-changing requests
  metrics: MetricsAccess      // who may read {base}/metrics (Prometheus): admin, public, or off (no route)
  masterKey?: string          // secret that encrypts the master password; default: key file security/master.key (0600)
  faultKillAt?: FaultRule[]   // test-only: fault points where the process SIGKILLs itself (services/faults.ts)
}

export type MetricsAccess = 'admin' | 'public' | 'off'
const METRICS_ACCESS: MetricsAccess[] = ['admin', 'public', 'off']

export type MapwardenOptions = Partial<MapwardenConfig> & {
  /** Environment to read MAPWARDEN_* from; defaults to process.env. Tests pass {}. */
  env?: Record<string, string | undefined>
}

export class ConfigError extends Error {
  constructor (message: string) { super(message); this.name = 'ConfigError' }
}

interface Setting {
  key: keyof MapwardenConfig
  env: string
  parse: (raw: string) => unknown
  default?: unknown
  describe: string
}

const int = (min: number, max: number) => (raw: string) => {
  if (!/^-?\d+$/.test(raw.trim())) throw new Error(`must be an integer from ${min} to ${max}`)
  const n = Number(raw)
  if (n < min || n > max) throw new Error(`must be an integer from ${min} to ${max}`)
  return n
}
const bytes = (min: number) => (raw: string) => {
  const m = /^(\d+)\s*(|b|k|kb|kib|m|mb|mib|g|gb|gib)$/i.exec(raw.trim())
  if (!m) throw new Error('must be a size in bytes, optionally with KiB, MiB or GiB')
  const unit = m[2].toLowerCase()
  const mult = unit.startsWith('g') ? 2 ** 30 : unit.startsWith('m') ? 2 ** 20 : unit.startsWith('k') ? 2 ** 10 : 1
  const n = Number(m[1]) * mult
  if (n < min) throw new Error(`must be at least ${min} bytes`)
  return n
}
/** A list of host names (`*.example.org`: its subdomains) or IP literals, separated by commas or spaces. */
const hostList = (raw: string) => raw.split(/[\s,]+/).filter(Boolean).map((h) => {
  const host = h.toLowerCase().replace(/^\[|\]$/g, '')
  if (!/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host) && !/^[0-9a-f:.]+$/.test(host)) throw new Error(`entries must be host names such as data.example.org or *.example.org, got "${h}"`)
  return host
})

const bool = (raw: string) => {
  if (/^(1|true|yes|on)$/i.test(raw)) return true
  if (/^(0|false|no|off)$/i.test(raw)) return false
  throw new Error('must be true or false')
}
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export const SETTINGS: Setting[] = [
  { key: 'port', env: 'MAPWARDEN_PORT', parse: int(0, 65535), default: 8080, describe: 'TCP port of the standalone server' },
  { key: 'host', env: 'MAPWARDEN_HOST', parse: (s) => s, default: '127.0.0.1', describe: 'Address the standalone server listens on (0.0.0.0 in the container)' },
  {
    key: 'basePath',
    env: 'MAPWARDEN_BASE_PATH',
    parse: (s) => {
      const p = s.replace(/\/+$/, '')
      if (p !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(p)) throw new Error('must be empty or a path such as /geoserver')
      return p
    },
    default: '/geoserver',
    describe: 'Path prefix of every route, so URLs read like GeoServer\'s'
  },
  { key: 'dataDir', env: 'MAPWARDEN_DATA_DIR', parse: (s) => path.resolve(s), default: path.resolve('data'), describe: 'Data directory: catalog database, styles, granules, tiles' },
  {
    key: 'logLevel',
    env: 'MAPWARDEN_LOG_LEVEL',
    parse: (s) => { if (!LEVELS.includes(s)) throw new Error(`must be one of ${LEVELS.join(', ')}`); return s },
    default: 'info',
    describe: 'pino log level'
  },
  {
    key: 'geoserverVersion',
    env: 'MAPWARDEN_GEOSERVER_VERSION',
    parse: (s) => { if (!/^2\.\d{1,2}\.\d{1,3}$/.test(s)) throw new Error('must be a GeoServer 2.x release such as 2.28.0'); return s },
    default: '2.28.0',
    describe: 'The GeoServer release whose behaviour mapwarden follows, as rest/about/version reports it (with GeoTools and GeoWebCache of that release: 2.28.0 is GeoTools 34.0 and GeoWebCache 1.28.0); clients pick their API calls by it'
  },
  { key: 'bodyLimit', env: 'MAPWARDEN_BODY_LIMIT', parse: bytes(1024), default: 5 * 2 ** 20, describe: 'Largest XML, JSON, SLD or text body' },
  { key: 'uploadLimit', env: 'MAPWARDEN_UPLOAD_LIMIT', parse: bytes(1024), default: 2 * 2 ** 30, describe: 'Largest ZIP upload on the wire' },
  { key: 'zipMaxEntries', env: 'MAPWARDEN_ZIP_MAX_ENTRIES', parse: int(1, 1_000_000), default: 10_000, describe: 'Most entries one ZIP archive may hold' },
  { key: 'zipMaxBytes', env: 'MAPWARDEN_ZIP_MAX_BYTES', parse: bytes(1024), default: 8 * 2 ** 30, describe: 'Largest total uncompressed size of one ZIP archive' },
  { key: 'workerThreads', env: 'MAPWARDEN_WORKER_THREADS', parse: int(1, 64), default: 2, describe: 'Render worker threads' },
  { key: 'renderNice', env: 'MAPWARDEN_RENDER_NICE', parse: int(0, 19), default: 10, describe: 'Nice value (Linux) of the render threads and of the process\'s other background threads (the thread pool that encodes tiles, garbage-collector helpers), so answering requests wins the CPU over seeding; 0 leaves thread priorities alone' },
  { key: 'maxSeedThreads', env: 'MAPWARDEN_MAX_SEED_THREADS', parse: int(1, 128), default: 16, describe: 'Largest threadCount of a seed request' },
  { key: 'taskSlots', env: 'MAPWARDEN_TASK_SLOTS', parse: int(1, 128), default: 4, describe: 'Seed tasks running at once; others wait as PENDING' },
  { key: 'tileQueue', env: 'MAPWARDEN_TILE_QUEUE', parse: int(1, 100_000), default: 256, describe: 'On-demand metatile renders (tiles requested and not cached) that may wait for a render thread; they go ahead of seeding; past it a tile request answers 503 with Retry-After' },
  { key: 'metatileWait', env: 'MAPWARDEN_METATILE_WAIT', parse: int(0, 3600), default: 30, describe: 'Seconds a tile request waits for a metatile that another instance on the same database (or a seed) is rendering, to serve the tiles it writes; past it the request renders the metatile itself (0: never wait)' },
  { key: 'jpegQuality', env: 'MAPWARDEN_JPEG_QUALITY', parse: int(1, 100), default: 80, describe: 'Quality (1-100) of JPEG tiles, of the JPEG tiles of image/vnd.jpeg-png and of WebP tiles' },
  { key: 'seedPyramid', env: 'MAPWARDEN_SEED_PYRAMID', parse: bool, default: false, describe: 'true: seeds of several zoom levels of a whole layer with a linear style render the deepest level and build each level above from the tiles under it (2x2 averaged); false (default): every level is rendered from the granules, which measured faster on the bench mosaic' },
  { key: 'wmsMaxSize', env: 'MAPWARDEN_WMS_MAX_SIZE', parse: int(1, 8192), default: 4096, describe: 'Largest WIDTH and HEIGHT of a WMS GetMap or GetFeatureInfo, in pixels; past it the request is refused with 400 naming the limit' },
  { key: 'wfsMaxFeatures', env: 'MAPWARDEN_WFS_MAX_FEATURES', parse: int(1, 1_000_000_000), default: 1_000_000, describe: 'Most features one WFS GetFeature answers (GeoServer\'s maxFeatures); a larger count is answered with this many, and capabilities advertise it as CountDefault' },
  { key: 'wmsMaxFeatures', env: 'MAPWARDEN_WMS_MAX_FEATURES', parse: int(1, 100_000_000), default: 200_000, describe: 'Most features of one vector layer a WMS map draws (streamed to the render thread in batches, so memory does not grow with it: it bounds the time of one map); past it the map is refused with 400 naming the layer' },
  { key: 'maxPendingTasks', env: 'MAPWARDEN_MAX_PENDING_TASKS', parse: int(1, 1_000_000), default: 1000, describe: 'Pending-task cap; seed requests past it get 429' },
  {
    key: 'harvestRoots',
    env: 'MAPWARDEN_HARVEST_ROOTS',
    parse: (s) => s.split(path.delimiter).filter(Boolean).map((p) => {
      if (!path.isAbsolute(p)) throw new Error(`entries must be absolute paths, got "${p}"`)
      return path.resolve(p)
    }),
    default: [],
    describe: 'Directories (separated by ' + path.delimiter + ') that harvesting may read; empty = no external harvesting'
  },
  {
    key: 'blobStoreRoots',
    env: 'MAPWARDEN_BLOBSTORE_ROOTS',
    parse: (s) => s.split(path.delimiter).filter(Boolean).map((p) => {
      if (!path.isAbsolute(p)) throw new Error(`entries must be absolute paths, got "${p}"`)
      return path.resolve(p)
    }),
    default: [],
    describe: 'Directories (separated by ' + path.delimiter + ') under which GeoWebCache\'s REST may create file blob stores (gwc/rest/blobstores baseDirectory); empty = only the built-in tile cache of the data directory'
  },
  {
    key: 'remoteUploadHosts',
    env: 'MAPWARDEN_REMOTE_UPLOAD_HOSTS',
    parse: hostList,
    default: [],
    describe: 'Hosts (separated by commas; *.example.org: its subdomains) that url.* uploads may fetch from over http: or https:; empty = remote URLs refused'
  },
  {
    key: 'cascadeHosts',
    env: 'MAPWARDEN_CASCADE_HOSTS',
    parse: hostList,
    default: [],
    describe: 'Hosts (separated by commas; *.example.org: its subdomains) that cascaded WMS and WMTS stores may call over http: or https:; a loopback, private or link-local address only when its host is named exactly; empty = cascading off'
  },
  { key: 'cascadeRetrySeconds', env: 'MAPWARDEN_CASCADE_RETRY', parse: int(0, 86400), default: 30, describe: 'Seconds before a cascaded store whose remote could not be reached (disableOnConnFailure set: its layers read as disabled) asks the remote again; the first request after it waits for that answer' },
  { key: 'remoteUploadAllowPrivate', env: 'MAPWARDEN_REMOTE_UPLOAD_ALLOW_PRIVATE', parse: bool, default: false, describe: 'Test only: url.* uploads may reach loopback, private and link-local addresses (never set it in production)' },
  { key: 'remoteUploadTimeout', env: 'MAPWARDEN_REMOTE_UPLOAD_TIMEOUT', parse: int(1, 86400), default: 300, describe: 'Seconds a url.* upload\'s remote transfer may take, redirects included; past it 400 and the partial file removed' },
  {
    // Never logged: it may hold a password.
    key: 'databaseUrl',
    env: 'MAPWARDEN_DATABASE_URL',
    parse: (s) => {
      let url: URL
      try { url = new URL(s) } catch { throw new Error('must be a URL such as postgres://user@host:5432/mapwarden') }
      if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new Error(`must be a postgres:// URL, got a ${url.protocol} URL`)
      return s
    },
    describe: 'PostgreSQL URL (postgres://user:password@host:5432/db): the catalog, mosaic indexes, task records and disk-quota usage live there and several instances may share it with one data directory; unset: the embedded SQLite catalog in the data directory'
  },
  { key: 'adminPassword', env: 'MAPWARDEN_ADMIN_PASSWORD', parse: (s) => s, describe: 'Password of user admin on first start; generated and printed once when unset' },
  { key: 'allowWeakPasswords', env: 'MAPWARDEN_ALLOW_WEAK_PASSWORDS', parse: bool, default: false, describe: 'For a throwaway test server only (a client library\'s own test suite with admin/geoserver): accept passwords shorter than 8 characters or well-known defaults, for MAPWARDEN_ADMIN_PASSWORD and users; a warning is logged at every start' },
  { key: 'bodyMinRate', env: 'MAPWARDEN_BODY_MIN_RATE', parse: int(0, 1_000_000_000), default: 1024, describe: 'Bytes per second a request body must average over each 5-second window; slower: 408 and the connection closed (0: no minimum)' },
  { key: 'bodyTimeout', env: 'MAPWARDEN_BODY_TIMEOUT', parse: int(1, 86400), default: 60, describe: 'Seconds a request may take to send its body (uploads: MAPWARDEN_UPLOAD_TIMEOUT); past it: 408 and the connection closed' },
  { key: 'uploadTimeout', env: 'MAPWARDEN_UPLOAD_TIMEOUT', parse: int(1, 604800), default: 3600, describe: 'Seconds a ZIP upload may take to arrive; past it: 408, the connection closed and the partial file removed' },
  { key: 'maxConnectionsPerAddress', env: 'MAPWARDEN_MAX_CONNECTIONS_PER_ADDRESS', parse: int(0, 1_000_000), default: 256, describe: 'Open connections one client address may hold (0: no cap); past it a new connection is answered 503 and closed' },
  { key: 'tileMaxAge', env: 'MAPWARDEN_TILE_MAX_AGE', parse: int(0, 31536000), default: 60, describe: 'Cache-Control max-age of tiles (seconds); clients revalidate with the ETag after it' },
  { key: 'authCacheSeconds', env: 'MAPWARDEN_AUTH_CACHE_SECONDS', parse: int(0, 3600), default: 60, describe: 'How long a verified password is remembered' },
  {
    key: 'trustedOrigins',
    env: 'MAPWARDEN_TRUSTED_ORIGINS',
    parse: (s) => s.split(/[\s,]+/).filter(Boolean).map((o) => {
      let url: URL
      try { url = new URL(o) } catch { throw new Error(`entries must be origins such as https://maps.example.org, got "${o}"`) }
      if (!/^https?:$/.test(url.protocol) || url.origin !== o.replace(/\/$/, '')) throw new Error(`entries must be origins such as https://maps.example.org (scheme, host, optional port), got "${o}"`)
      return url.origin
    }),
    default: [],
    describe: 'Web origins (separated by commas) besides the server\'s own whose pages may send POST, PUT, DELETE and PATCH requests through a browser'
  },
  { key: 'resumeTasks', env: 'MAPWARDEN_RESUME_TASKS', parse: bool, default: true, describe: 'Seed, reseed and truncate tasks pending or running when the process stopped resume after the next start (same ids); false ends them ABORTED (aborted: restart)' },
  {
    key: 'metrics',
    env: 'MAPWARDEN_METRICS',
    parse: (s) => { if (!METRICS_ACCESS.includes(s as MetricsAccess)) throw new Error(`must be one of ${METRICS_ACCESS.join(', ')}`); return s },
    default: 'admin',
    describe: 'Who may read {base}/metrics (Prometheus text format): admin (Basic credentials of an administrator), public (anyone: a scraper on a private network), off (no such route)'
  },
  { key: 'requireHttps', env: 'MAPWARDEN_REQUIRE_HTTPS', parse: bool, default: false, describe: 'Refuse Basic credentials over plain HTTP' },
  // Never echoed: its length (at least 16 characters) is checked by services/security/master-password.ts.
  { key: 'masterKey', env: 'MAPWARDEN_MASTER_KEY', parse: (s) => s, describe: 'Secret (16+ characters) that encrypts the master password at rest; default: a generated key file security/master.key (0600) in the data directory' },
  // Test-only (test/crash/): never set it on a server that holds data you want.
  { key: 'faultKillAt', env: 'MAPWARDEN_FAULT_KILL_AT', parse: parseFaultList, describe: 'Test only: fault points (name or name@n, separated by , or |) where the process kills itself with SIGKILL' }
]


export function resolveConfig (options: MapwardenOptions = {}): MapwardenConfig {
  const env = options.env ?? process.env
  const out: Record<string, unknown> = {}
  for (const s of SETTINGS) {
    const given = options[s.key]
    const raw = env[s.env]
    try {
      if (given !== undefined) out[s.key] = typeof given === 'string' ? s.parse(given) : checkTyped(s, given)
      else if (raw !== undefined && raw !== '') out[s.key] = s.parse(raw)
      else out[s.key] = s.default
    } catch (err) {
      const source = given !== undefined ? `option ${s.key}` : s.env
      throw new ConfigError(`Invalid setting ${source}=${JSON.stringify(given ?? raw)}: ${(err as Error).message}`)
    }
  }
  const cfg = out as unknown as MapwardenConfig
  const weakness = cfg.adminPassword === undefined || cfg.allowWeakPasswords ? undefined : passwordWeakness(cfg.adminPassword)
  if (weakness) throw new ConfigError(`Invalid setting MAPWARDEN_ADMIN_PASSWORD: ${weakness} (geoserver, secured, admin, password...); MAPWARDEN_ALLOW_WEAK_PASSWORDS=true allows it on a throwaway test server`)
  return cfg
}

function checkTyped (s: Setting, value: unknown): unknown {
  // Programmatic options arrive typed; re-validate them through the same parser.
  if (s.key === 'faultKillAt' && Array.isArray(value)) return s.parse(value.map((r: FaultRule | string) => typeof r === 'string' ? r : `${r.name}@${r.nth}`).join(','))
  if (Array.isArray(value)) return s.parse(value.join(s.key === 'trustedOrigins' || s.key === 'remoteUploadHosts' || s.key === 'cascadeHosts' ? ',' : path.delimiter))
  return s.parse(String(value))
}
