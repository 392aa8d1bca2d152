// Property collectors: attribute values extracted from a granule's file name by the regex
// sidecars (GeoTools' FileNameExtractor SPIs), or from the clock / the file's modification time.
import type { Collector, MosaicSettings } from './indexer.js'

export type AttrValue = string | number | boolean | null

/** Parses a matched date string with a Java SimpleDateFormat pattern, or by its digits. UTC. */
export function parseDate (text: string, format?: string): string | undefined {
  let y = 0; let mo = 1; let d = 1; let h = 0; let mi = 0; let s = 0; let ms = 0
  if (format) {
    let i = 0
    let k = 0
    while (k < format.length) {
      const c = format[k]
      if (c === "'") { // quoted literal
        const end = format.indexOf("'", k + 1)
        const lit = end < 0 ? format.slice(k + 1) : format.slice(k + 1, end)
        i += lit.length
        k = end < 0 ? format.length : end + 1
        continue
      }
      let n = 1
      while (format[k + n] === c) n++
      if (/[yMdHhmsS]/.test(c)) {
        const digits = text.slice(i, i + n)
        if (!/^\d+$/.test(digits)) return undefined
        const v = Number(digits)
        if (c === 'y') y = n === 2 ? 2000 + v : v
        else if (c === 'M') mo = v
        else if (c === 'd') d = v
        else if (c === 'H' || c === 'h') h = v
        else if (c === 'm') mi = v
        else if (c === 's') s = v
        else if (c === 'S') ms = Math.round(v * 10 ** (3 - n))
        i += n
      } else i += n
      k += n
    }
  } else {
    const m = /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ]?(\d{2}):?(\d{2})(?::?(\d{2}))?(\d*)?)?/.exec(text.replace(/[^0-9T: -]/g, ''))
    if (!m) return undefined
    y = Number(m[1]); mo = Number(m[2]); d = Number(m[3])
    h = Number(m[4] ?? 0); mi = Number(m[5] ?? 0); s = Number(m[6] ?? 0)
    const frac = (m[7] ?? '').replace(/\D/g, '')
    ms = frac ? Math.round(Number('0.' + frac) * 1000) : 0
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return undefined
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms)
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined
}

function matchOf (c: Collector, fileName: string): string | undefined {
  if (!c.regex) return undefined
  const m = new RegExp(c.regex).exec(fileName)
  if (!m) return undefined
  return m[1] ?? m[0]
}

function collect (c: Collector, fileName: string, mtime: Date, now: Date): AttrValue {
  switch (c.spi) {
    case 'CurrentDateExtractorSPI': return now.toISOString()
    case 'FSDateExtractorSPI': return mtime.toISOString()
    case 'StringFileNameExtractorSPI': return matchOf(c, fileName) ?? null
    case 'TimestampFileNameExtractorSPI':
    case 'DateExtractorSPI': {
      const m = matchOf(c, fileName)
      return m === undefined ? null : parseDate(m, c.format) ?? null
    }
    default: {
      const m = matchOf(c, fileName)
      if (m === undefined) return null
      const n = Number(m)
      return Number.isFinite(n) ? n : null
    }
  }
}

/** Attribute values of one granule file (location and geometry are added by the caller). */
export function collectAttributes (settings: Pick<MosaicSettings, 'collectors' | 'schema'>, fileName: string,
  mtime: Date, now: Date): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {}
  for (const c of settings.collectors) {
    let v = collect(c, fileName, mtime, now)
    const attr = settings.schema.find((a) => a.name === c.attribute)
    if (attr?.type === 'Integer' && typeof v === 'number') v = Math.trunc(v)
    out[c.attribute] = v
  }
  return out
}
