// The connection parameters of a PostGIS data store, as GeoServer's PostgisNGDataStoreFactory names
// them. A body gives them as `<entry key="host">..</entry>` entries (JSON `{"@key":"host","$":".."}`)
// or as child elements / plain members (`<host>..</host>`, `{"host":".."}`); both arrive here in the
// unified JSON shape (services/body-fields.ts: unifyShape). Values are kept as text, as GeoServer's
// REST API shows them. Keys this server reads are checked (type, range); every other key is kept
// and shown as sent, and nothing reads it, so it is never applied wrongly.
import { InvalidDataStore } from '../errors.js'

export type Params = Record<string, string>

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

export const MAX_PARAMS = 100
export const MAX_KEY_LENGTH = 256
export const MAX_VALUE_LENGTH = 4096
/** PostgreSQL's identifier limit (NAMEDATALEN - 1), in bytes. */
const MAX_IDENTIFIER_BYTES = 63

const BOOLEAN_KEYS = [
  'Expose primary keys', 'Loose bbox', 'Estimated extends', 'validate connections', 'encode functions', 'preparedStatements',
  'Support on the fly geometry simplification', 'create database', 'Test while idle'
]
/** Integer keys and their smallest allowed value. */
const INTEGER_KEYS: Record<string, number> = {
  port: 1,
  'max connections': 1,
  'min connections': 0,
  'fetch size': 0,
  'Connection timeout': 1,
  'Max open prepared statements': 0,
  'Batch insert size': 1,
  'Evictor run periodicity': 0,
  'Max connection idle time': 0,
  'Evictor tests per run': 0
}
const SSL_MODES = ['DISABLE', 'ALLOW', 'PREFER', 'REQUIRE', 'VERIFY_CA', 'VERIFY_FULL']

const shown = (v: string) => JSON.stringify(v.length > 60 ? v.slice(0, 60) + '...' : v)

function text (v: unknown, key: string): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  if (typeof v === 'boolean') return String(v)
  if (v === null) return ''
  throw InvalidDataStore(`connection parameter ${shown(key)} must be a text value`)
}

/**
 * The parameters a body sends, in the order sent: entries and plain members, later ones win.
 * `""` (an empty <connectionParameters/>) is no parameters.
 */
export function readParams (v: unknown): Params {
  if (v === undefined || v === '' || v === null) return {}
  if (!isObject(v)) throw InvalidDataStore('connectionParameters must hold entry elements or parameter elements')
  const out: Params = {}
  const put = (key: string, value: unknown) => {
    if (key === '' || key.length > MAX_KEY_LENGTH) throw InvalidDataStore(`connection parameter name ${shown(key)} must have 1 to ${MAX_KEY_LENGTH} characters`)
    const t = text(value, key)
    if (t.length > MAX_VALUE_LENGTH) throw InvalidDataStore(`connection parameter ${shown(key)} is longer than ${MAX_VALUE_LENGTH} characters`)
    if (/[\u0000-\u001f\u007f]/.test(key) || /\u0000/.test(t)) throw InvalidDataStore(`connection parameter ${shown(key)} holds a control character`)
    out[key] = t
  }
  for (const [k, value] of Object.entries(v)) {
    if (k === 'entry') {
      const entries = Array.isArray(value) ? value : value === '' || value === undefined ? [] : [value]
      for (const [i, e] of entries.entries()) {
        if (!isObject(e) || typeof e['@key'] !== 'string') throw InvalidDataStore(`connectionParameters entry ${i + 1} needs a key attribute (<entry key="...">, "@key")`)
        const extra = Object.keys(e).find((x) => x !== '@key' && x !== '$')
        if (extra !== undefined) throw InvalidDataStore(`connectionParameters entry ${shown(e['@key'])} holds ${shown(extra)}: an entry holds text only`)
        put(e['@key'], e.$ ?? '')
      }
    } else if (k.startsWith('@')) {
      throw InvalidDataStore(`connectionParameters: unexpected attribute ${shown(k.slice(1))}`)
    } else {
      put(k, value)
    }
  }
  if (Object.keys(out).length > MAX_PARAMS) throw InvalidDataStore(`more than ${MAX_PARAMS} connection parameters`)
  return out
}

function identifier (p: Params, key: string, required: boolean): void {
  const v = p[key]
  if (v === undefined || v === '') {
    if (required) throw InvalidDataStore(`connection parameter ${shown(key)} is required`)
    return
  }
  if (Buffer.byteLength(v) > MAX_IDENTIFIER_BYTES) throw InvalidDataStore(`connection parameter ${shown(key)} is longer than PostgreSQL's ${MAX_IDENTIFIER_BYTES}-byte limit: ${shown(v)}`)
}

/**
 * Checks the keys this server reads, normalising booleans (`TRUE` -> `true`) and the SSL mode;
 * returns the parameters to store. `passwd` is left as given: the caller seals it.
 */
export function checkPostgisParams (p: Params): Params {
  const out: Params = { ...p }
  const dbtype = (out.dbtype ?? '').toLowerCase()
  if (dbtype !== 'postgis') throw InvalidDataStore(`connection parameter "dbtype" must be postgis, not ${shown(out.dbtype ?? '')}`)
  out.dbtype = 'postgis'
  const host = out.host ?? ''
  if (host === '') throw InvalidDataStore('connection parameter "host" is required')
  if (host.length > 253 || !/^[A-Za-z0-9._:\-[\]%]+$/.test(host)) throw InvalidDataStore(`connection parameter "host" is not a host name or address: ${shown(host)}`)
  identifier(out, 'database', true)
  identifier(out, 'user', true)
  identifier(out, 'schema', false)
  for (const [key, min] of Object.entries(INTEGER_KEYS)) {
    const v = out[key]
    if (v === undefined || v === '') { delete out[key]; continue }
    const n = /^\s*[0-9]+\s*$/.test(v) ? Number(v) : NaN
    if (!Number.isSafeInteger(n) || n < min || (key === 'port' && n > 65535)) {
      throw InvalidDataStore(`connection parameter ${shown(key)} must be an integer ${key === 'port' ? 'from 1 to 65535' : `of at least ${min}`}: ${shown(v)}`)
    }
    out[key] = String(n)
  }
  const max = out['max connections']
  const min = out['min connections']
  if (max !== undefined && min !== undefined && Number(min) > Number(max)) throw InvalidDataStore(`"min connections" (${min}) is above "max connections" (${max})`)
  for (const key of BOOLEAN_KEYS) {
    const v = out[key]
    if (v === undefined) continue
    if (!/^(true|false)$/i.test(v.trim())) throw InvalidDataStore(`connection parameter ${shown(key)} must be true or false: ${shown(v)}`)
    out[key] = v.trim().toLowerCase()
  }
  if (out['SSL mode'] !== undefined) {
    const mode = out['SSL mode'].trim().toUpperCase()
    if (!SSL_MODES.includes(mode)) throw InvalidDataStore(`connection parameter "SSL mode" must be one of ${SSL_MODES.join(', ')}: ${shown(out['SSL mode'])}`)
    out['SSL mode'] = mode
  }
  return out
}

/** The connection settings the probe uses, with GeoServer's defaults. */
export interface ConnectionSettings {
  host: string
  port: number
  database: string
  schema: string
  user: string
  password?: string
  /** Seconds: connecting and every statement. */
  timeout: number
  ssl: 'off' | 'require' | 'verify'
}

/** What node-postgres takes of `s`, for a client or a pool: the timeout bounds connecting and each statement. */
export function pgConnectionConfig (s: ConnectionSettings) {
  const ms = s.timeout * 1000
  return {
    host: s.host,
    port: s.port,
    database: s.database,
    user: s.user,
    // An empty password where none is set: node-postgres would fall back to PGPASSWORD and ~/.pgpass.
    password: s.password ?? '',
    connectionTimeoutMillis: ms,
    query_timeout: ms,
    statement_timeout: ms,
    application_name: 'mapwarden',
    ssl: s.ssl === 'off' ? false as const : { rejectUnauthorized: s.ssl === 'verify' }
  }
}

export const DEFAULT_PORT = 5432
export const DEFAULT_SCHEMA = 'public'
/** GeoServer's default "Connection timeout", in seconds. */
export const DEFAULT_TIMEOUT = 20

export function connectionSettings (p: Params, password: string | undefined): ConnectionSettings {
  const mode = p['SSL mode']
  return {
    host: p.host,
    port: p.port ? Number(p.port) : DEFAULT_PORT,
    database: p.database,
    schema: p.schema || DEFAULT_SCHEMA,
    user: p.user,
    ...(password !== undefined ? { password } : {}),
    timeout: p['Connection timeout'] ? Number(p['Connection timeout']) : DEFAULT_TIMEOUT,
    ssl: mode === 'REQUIRE' ? 'require' : mode === 'VERIFY_CA' || mode === 'VERIFY_FULL' ? 'verify' : 'off'
  }
}
