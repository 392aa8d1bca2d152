// A layer's attribution, as GeoServer's AttributionInfo: read from a layer body (XML text values
// or JSON), written back in AttributionInfoImpl's field order (title, href, logoURL, logoWidth,
// logoHeight, logoType; the two sizes always, 0 when unset, as XStream writes the ints), and shown
// in WMS capabilities (services/wms/capabilities.ts).
import { InvalidBody } from '../errors.js'
import { checkFields } from '../body-fields.js'
import type { LayerAttribution } from './layers.js'

const FIELDS = ['title', 'href', 'logoURL', 'logoWidth', 'logoHeight', 'logoType'] as const
const MAX_TEXT = 2048

function text (where: string, v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (typeof v !== 'string') throw InvalidBody(`layer attribution ${where} must be text, got ${JSON.stringify(v).slice(0, 40)}`)
  if (v.length > MAX_TEXT) throw InvalidBody(`layer attribution ${where} is longer than ${MAX_TEXT} characters`)
  return v
}

/** A link a capabilities document hands to every client: http(s) only (no javascript:, file:, data:). */
function url (where: string, v: unknown): string | undefined {
  const s = text(where, v)
  if (s === undefined) return undefined
  let parsed: URL
  try { parsed = new URL(s) } catch { throw InvalidBody(`layer attribution ${where} must be an absolute http(s) URL, got ${JSON.stringify(s.slice(0, 80))}`) }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw InvalidBody(`layer attribution ${where} must be an http(s) URL, got ${JSON.stringify(s.slice(0, 80))}`)
  return s
}

function size (where: string, v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN
  if (!Number.isSafeInteger(n) || n < 0 || n > 100000) throw InvalidBody(`layer attribution ${where} must be a whole number of pixels (0 to 100000), got ${JSON.stringify(v).slice(0, 40)}`)
  return n === 0 ? undefined : n
}

/**
 * The attribution of a PUT layer body: the object replaces the layer's whole attribution; "", null
 * or an object with nothing set removes it. Unknown fields are refused, naming them.
 */
export function parseAttribution (v: unknown): LayerAttribution | undefined {
  if (v === '' || v === null) return undefined
  if (typeof v !== 'object' || Array.isArray(v)) throw InvalidBody('layer attribution must be an object (title, href, logoURL, logoWidth, logoHeight, logoType)')
  const body = v as Record<string, unknown>
  checkFields(body, 'layer attribution', FIELDS)
  const a: LayerAttribution = {}
  const title = text('title', body.title)
  const href = url('href', body.href)
  const logoURL = url('logoURL', body.logoURL)
  const logoWidth = size('logoWidth', body.logoWidth)
  const logoHeight = size('logoHeight', body.logoHeight)
  const logoType = text('logoType', body.logoType)
  if (logoType !== undefined && !/^[\w.+-]+\/[\w.+-]+$/.test(logoType)) throw InvalidBody(`layer attribution logoType must be a media type such as image/png, got ${JSON.stringify(logoType.slice(0, 40))}`)
  if (title !== undefined) a.title = title
  if (href !== undefined) a.href = href
  if (logoURL !== undefined) a.logoURL = logoURL
  if (logoWidth !== undefined) a.logoWidth = logoWidth
  if (logoHeight !== undefined) a.logoHeight = logoHeight
  if (logoType !== undefined) a.logoType = logoType
  return Object.keys(a).length === 0 ? undefined : a
}

/** The attribution as GeoServer's REST API writes it. */
export function attributionDoc (a: LayerAttribution): Record<string, string | number | undefined> {
  return { title: a.title, href: a.href, logoURL: a.logoURL, logoWidth: a.logoWidth ?? 0, logoHeight: a.logoHeight ?? 0, logoType: a.logoType }
}
