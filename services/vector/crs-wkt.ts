// The native CRS of a feature type as GeoServer writes it: WKT 1 (its CRSConverter writes
// CoordinateReferenceSystem.toWKT(), GeoTools' layout: a child element on a line of its own, indented
// two spaces a level, once its parent holds one that is not an AUTHORITY), with XStream's
// class="projected" for a projected CRS (GeoServer aliases DefaultProjectedCRS "projected"; a
// geographic CRS is the default implementation and carries no class). The text is the EPSG registry's
// (services/render/epsg.ts, epsg-index: GDAL's spelling, which GeoTools, GDAL and proj4 all read)
// for an EPSG code, or the source's own WKT (a .prj) when it names none. The parser also reads the
// nativeCRS a client sends back (services/vector/feature-type-crs.ts).
import { epsgEntry, epsgWkt } from '../render/epsg.js'

export type WktArg = WktNode | { text: string, quoted: boolean }
export interface WktNode { keyword: string, args: WktArg[] }

const isNode = (a: WktArg): a is WktNode => 'keyword' in a
const TOKEN = /\s*(?:("(?:[^"]|"")*")|([A-Za-z_][A-Za-z0-9_]*)|([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)|([[\](),]))/y

/** WKT 1 (or 2) text as a tree; throws an Error saying where it is not WKT. */
export function parseWkt (text: string): WktNode {
  const s = text.replace(/^\uFEFF/, '').trim()
  let pos = 0
  const next = (): { kind: 'str' | 'word' | 'num' | 'punct', v: string } | undefined => {
    if (pos >= s.length) return undefined
    TOKEN.lastIndex = pos
    const m = TOKEN.exec(s)
    if (!m) throw new Error(`unexpected text at character ${pos + 1}: ${JSON.stringify(s.slice(pos, pos + 16))}`)
    pos = TOKEN.lastIndex
    return m[1] !== undefined ? { kind: 'str', v: m[1] } : m[2] !== undefined ? { kind: 'word', v: m[2] } : m[3] !== undefined ? { kind: 'num', v: m[3] } : { kind: 'punct', v: m[4] }
  }
  const node = (keyword: string, depth: number): WktNode => {
    if (depth > 32) throw new Error('elements nested more than 32 deep')
    const open = next()
    if (open?.v !== '[' && open?.v !== '(') throw new Error(`${keyword} is not followed by [`)
    const args: WktArg[] = []
    for (;;) {
      const t = next()
      if (!t) throw new Error(`${keyword}[ is not closed`)
      if (t.kind === 'word') {
        const save = pos
        const after = next()
        pos = save
        args.push(after?.v === '[' || after?.v === '(' ? node(t.v, depth + 1) : { text: t.v, quoted: false })
      } else if (t.kind === 'str' || t.kind === 'num') args.push({ text: t.kind === 'str' ? t.v.slice(1, -1).replace(/""/g, '"') : t.v, quoted: t.kind === 'str' })
      else throw new Error(`unexpected ${JSON.stringify(t.v)} in ${keyword}`)
      const sep = next()
      if (sep?.v === ']' || sep?.v === ')') return { keyword, args }
      if (sep?.v !== ',') throw new Error(`${keyword}[ is not closed`)
    }
  }
  const first = next()
  if (first?.kind !== 'word') throw new Error('it does not start with a keyword such as PROJCS[ or GEOGCS[')
  const root = node(first.v, 0)
  if (pos < s.length) throw new Error(`text after the closing bracket: ${JSON.stringify(s.slice(pos, pos + 16))}`)
  return root
}

const atom = (a: { text: string, quoted: boolean }) => a.quoted ? `"${a.text.replace(/"/g, '""')}"` : a.text

/** GeoTools' layout of a tree; GDAL's EXTENSION (a proj4 string GeoTools neither writes nor reads) left out. */
export function formatWkt (n: WktNode, depth = 0): string {
  const args = n.args.filter((a) => !(isNode(a) && a.keyword.toUpperCase() === 'EXTENSION'))
  const authority = /^(AUTHORITY|ID)$/i
  if (authority.test(n.keyword)) return `${n.keyword}[${args.map((a) => isNode(a) ? formatWkt(a, depth + 1) : atom(a)).join(',')}]`
  const breaks = args.some((a) => isNode(a) && !authority.test(a.keyword))
  const inner = '  '.repeat(depth + 1)
  let out = `${n.keyword}[`
  args.forEach((a, i) => {
    if (i > 0) out += breaks && isNode(a) ? `, \n${inner}` : ', '
    out += isNode(a) ? formatWkt(a, depth + 1) : atom(a)
  })
  return out + ']'
}

/** The EPSG code of the top-level AUTHORITY (or WKT 2 ID), 0 without one. */
export function authorityCode (n: WktNode): number {
  const auth = [...n.args].reverse().find((a): a is WktNode => isNode(a) && /^(AUTHORITY|ID)$/i.test(a.keyword))
  if (!auth || auth.args.length < 2 || isNode(auth.args[0]) || isNode(auth.args[1])) return 0
  if (auth.args[0].text.toUpperCase() !== 'EPSG' || !/^[0-9]{1,9}$/.test(auth.args[1].text)) return 0
  return Number(auth.args[1].text)
}

export const isProjected = (n: WktNode) => /^(PROJCS|PROJCRS|PROJECTEDCRS)$/i.test(n.keyword)

export interface NativeCrsText {
  /** The WKT (or `EPSG:<code>` for a code whose registry entry has none). */
  wkt: string
  projected: boolean
}

/**
 * What GeoServer shows as nativeCRS: the registry's WKT of `EPSG:<code>`, else the source's own WKT;
 * undefined when the data declares no CRS.
 */
export function nativeCrsText (nativeCRS: string | undefined, sourceWkt: string | undefined): NativeCrsText | undefined {
  const code = nativeCRS ? Number(/^EPSG:([0-9]+)$/i.exec(nativeCRS)?.[1] ?? NaN) : NaN
  const text = Number.isFinite(code) ? epsgWkt(code) : sourceWkt
  if (text === undefined) {
    if (!nativeCRS) return undefined
    return { wkt: nativeCRS, projected: Number.isFinite(code) && epsgEntry(code)?.geographic === false }
  }
  try {
    const tree = parseWkt(text)
    return { wkt: formatWkt(tree), projected: isProjected(tree) }
  } catch {
    return { wkt: text, projected: /^\s*PROJ/i.test(text) } // stored as the source has it; shown as it is
  }
}

/** Whether `EPSG:<code>` is a projected CRS of the registry (GeoServer marks those class="projected"). */
export function isProjectedCode (crs: string | undefined): boolean {
  const m = crs ? /^EPSG:([0-9]+)$/i.exec(crs) : null
  return m !== null && epsgEntry(Number(m[1]))?.geographic === false
}
