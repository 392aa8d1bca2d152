// GeoServer's global settings (GET/PUT {base}/rest/settings and settings/contact): what mapwarden
// keeps of GeoServerInfo and its SettingsInfo. The document lives in the store and in memory here;
// proxyBaseUrl is read on every absolute URL mapwarden writes (plugins/infra/services.ts), so it
// is answered from memory, re-read when another instance announces a change or on a reload.
import type { SettingsStore } from './store.js'
import { InvalidBody } from '../errors.js'
import { onlyFields } from '../body-fields.js'
import { createKeyedQueue } from '../keyed-queue.js'

/** GeoServer's ContactInfo fields, all text; an empty string clears one. */
export const CONTACT_FIELDS = [
  'address', 'addressCity', 'addressCountry', 'addressDeliveryPoint', 'addressElectronicMailAddress', 'addressPostalCode',
  'addressState', 'addressType', 'contactEmail', 'contactFacsimile', 'contactOrganization', 'contactPerson',
  'contactPosition', 'contactVoice', 'onlineResource', 'welcome'
] as const
export type Contact = Partial<Record<typeof CONTACT_FIELDS[number], string>>

export interface Settings {
  contact: Contact
  charset: string
  numDecimals: number
  onlineResource?: string
  /** The URL (scheme, host, port, path) that replaces `http(s)://<host><base>` in every absolute URL written. */
  proxyBaseUrl?: string
  verbose: boolean
  verboseExceptions: boolean
}

export interface GlobalSettings {
  settings: Settings
  /** Counts the changes of the global settings (GeoServer's updateSequence). */
  updateSequence: number
}

const SETTINGS_FIELDS = ['contact', 'charset', 'numDecimals', 'onlineResource', 'proxyBaseUrl', 'verbose', 'verboseExceptions']
// Sent back by a GET-modify-PUT and not applied: GeoServer's object id.
const SETTINGS_READ_ONLY = ['id']
const GLOBAL_FIELDS = ['settings']
const GLOBAL_READ_ONLY = ['updateSequence']

export const DEFAULT_SETTINGS: GlobalSettings = {
  settings: { contact: {}, charset: 'UTF-8', numDecimals: 8, verbose: false, verboseExceptions: false },
  updateSequence: 0
}

const text = (v: unknown): string | undefined => typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined

function flag (v: unknown, field: string): boolean {
  if (v === true || v === 'true') return true
  if (v === false || v === 'false') return false
  throw InvalidBody(`settings ${field} must be true or false, got ${JSON.stringify(String(v).slice(0, 20))}`)
}

function charsetOf (v: unknown): string {
  const s = text(v)
  if (s !== undefined && s !== '') {
    try {
      new TextDecoder(s) // eslint-disable-line no-new
      return s
    } catch {}
  }
  throw InvalidBody(`settings charset is not a known character set: ${JSON.stringify(String(v).slice(0, 40))}`)
}

function decimals (v: unknown): number {
  const s = text(v)
  const n = s !== undefined && /^[0-9]{1,2}$/.test(s.trim()) ? Number(s) : NaN
  if (!(n >= 0 && n <= 17)) throw InvalidBody(`settings numDecimals must be an integer from 0 to 17, got ${JSON.stringify(String(v).slice(0, 20))}`)
  return n
}

/** An http(s) URL with no query, fragment or credentials; no trailing slash. Empty: none. */
function baseUrl (v: unknown, field: string): string | undefined {
  const s = text(v)
  if (s === undefined) throw InvalidBody(`settings ${field} must be a URL`)
  if (s.trim() === '') return undefined
  let url: URL | undefined
  try { url = new URL(s.trim()) } catch {}
  if (!url || !/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '' || /[\s<>"]/.test(s.trim())) {
    throw InvalidBody(`settings ${field} must be an http or https URL without query, fragment or credentials, got ${JSON.stringify(s.slice(0, 100))}`)
  }
  return url.href.replace(/\/+$/, '')
}

function onlineResource (v: unknown): string | undefined {
  const s = text(v)
  if (s === undefined) throw InvalidBody('settings onlineResource must be a URL')
  if (s.trim() === '') return undefined
  let url: URL | undefined
  try { url = new URL(s.trim()) } catch {}
  if (!url || !/^https?:$/.test(url.protocol)) throw InvalidBody(`settings onlineResource must be an http or https URL, got ${JSON.stringify(s.slice(0, 100))}`)
  return s.trim()
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The contact with `input`'s fields applied (partial: absent fields keep their value, "" clears). */
export function mergeContact (old: Contact, input: unknown): Contact {
  if (input === '' || input === null) return old
  if (!isObject(input)) throw InvalidBody('contact must be an object')
  onlyFields(input, 'contact', CONTACT_FIELDS, ['id'])
  const next: Contact = { ...old }
  for (const f of CONTACT_FIELDS) {
    if (input[f] === undefined) continue
    const v = text(input[f])
    if (v === undefined) throw InvalidBody(`contact ${f} must be text`)
    if (v.length > 4096) throw InvalidBody(`contact ${f} is longer than 4096 characters`)
    if (v === '') delete next[f]
    else next[f] = v
  }
  return next
}

/** The settings with `input`'s fields applied (partial, as GeoServer copies the fields sent). */
export function mergeSettings (old: Settings, input: unknown): Settings {
  if (input === '' || input === null) return old
  if (!isObject(input)) throw InvalidBody('settings must be an object')
  onlyFields(input, 'settings', SETTINGS_FIELDS, SETTINGS_READ_ONLY)
  const next: Settings = { ...old }
  if (input.contact !== undefined) next.contact = mergeContact(old.contact, input.contact)
  if (input.charset !== undefined) next.charset = charsetOf(input.charset)
  if (input.numDecimals !== undefined) next.numDecimals = decimals(input.numDecimals)
  if (input.onlineResource !== undefined) next.onlineResource = onlineResource(input.onlineResource)
  if (input.proxyBaseUrl !== undefined) next.proxyBaseUrl = baseUrl(input.proxyBaseUrl, 'proxyBaseUrl')
  if (input.verbose !== undefined) next.verbose = flag(input.verbose, 'verbose')
  if (input.verboseExceptions !== undefined) next.verboseExceptions = flag(input.verboseExceptions, 'verboseExceptions')
  for (const k of ['onlineResource', 'proxyBaseUrl'] as const) if (next[k] === undefined) delete next[k]
  return next
}

function parseStored (body: string | undefined): GlobalSettings {
  if (body === undefined) return structuredClone(DEFAULT_SETTINGS)
  const stored = JSON.parse(body) as GlobalSettings
  return { settings: { ...DEFAULT_SETTINGS.settings, ...stored.settings }, updateSequence: stored.updateSequence ?? 0 }
}

export function createSettingsService ({ store }: { store: SettingsStore }) {
  let current = structuredClone(DEFAULT_SETTINGS)
  // Changes and reloads run one at a time: a reload that read the row before a change committed
  // must not install it after that change (the change would be lost until the next one).
  const serialized = createKeyedQueue()
  const oneAtATime = <T>(fn: () => Promise<T>): Promise<T> => serialized('settings', fn)
  // Each change applies to the stored settings inside the store's transaction, so one made by
  // another instance meanwhile is kept; what this instance serves follows the result.
  const change = (apply: (old: GlobalSettings) => GlobalSettings) => oneAtATime(async () => {
    const body = await store.change((stored) => {
      const old = parseStored(stored)
      return JSON.stringify({ ...apply(old), updateSequence: old.updateSequence + 1 })
    })
    current = parseStored(body)
    return current
  })
  return {
    /** Reads the stored settings (at start, on a reload, when another instance changed them). */
    reload: (): Promise<void> => oneAtATime(async () => { current = parseStored(await store.read()) }),
    get (): GlobalSettings { return current },
    /** The proxy base URL, or undefined: every absolute URL is built from it when set. */
    proxyBaseUrl (): string | undefined { return current.settings.proxyBaseUrl },
    /** PUT settings: `{ settings: {...} }` (GeoServer's `global` root's content); partial. */
    async update (input: Record<string, unknown>) {
      onlyFields(input, 'global', GLOBAL_FIELDS, GLOBAL_READ_ONLY)
      return await change((old) => ({ ...old, settings: mergeSettings(old.settings, input.settings) }))
    },
    /** PUT settings/contact: the contact's fields; partial. */
    async updateContact (input: Record<string, unknown>) {
      return await change((old) => ({ ...old, settings: { ...old.settings, contact: mergeContact(old.settings.contact, input) } }))
    }
  }
}
export type SettingsService = ReturnType<typeof createSettingsService>
