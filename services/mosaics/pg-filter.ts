// A granule filter (CompiledFilter: the SQLite SQL that cql.ts and render-job.ts write, with `?`
// parameters) as PostgreSQL SQL with the same meaning. The filters use a small vocabulary, read
// here token by token; anything else is refused rather than guessed at:
// - json_extract(g.attrs, ?) with the path '$."<name>"': the attribute, compared through
//   mw_json_value (pg/mosaics-001-json-values) as SQLite compares the values json_extract returns
//   (numbers below strings, strings byte by byte); before LIKE/GLOB its text (mw_json_text);
// - a value parameter: mw_json_value of the value as JSON; after g.minx..g.maxy: a number;
// - LIKE ? ESCAPE '\' (SQLite: ASCII case-insensitive): ILIKE in the C collation, which folds
//   ASCII only; GLOB ? (case-sensitive): LIKE with the pattern translated;
// - the constants 1 and 0: TRUE and FALSE; AND, OR, NOT, BETWEEN, IN, IS [NOT] NULL, comparisons.
import type { CompiledFilter } from './cql.js'

const TOKEN = /\s*(?:(json_extract\(g\.attrs, \?\))|('(?:[^']|'')*')|([A-Za-z_][A-Za-z0-9_.]*)|(\d+)|(<>|!=|<=|>=|=|<|>)|([(),?]))/y
const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'BETWEEN', 'IN', 'IS', 'NULL'])
const BBOX_COLUMNS = new Set(['g.minx', 'g.miny', 'g.maxx', 'g.maxy'])

/** The attribute name of a json_extract path '$."name"'. */
function attributeOf (path: unknown): string {
  const m = typeof path === 'string' ? /^\$\."(.*)"$/s.exec(path) : null
  if (!m) throw new Error(`granule filter: unexpected attribute path ${JSON.stringify(path)}`)
  return m[1]
}

/** A GLOB pattern (*, ?, [c] for a literal c) as a LIKE pattern with backslash escapes. */
export function globToLike (glob: string): string {
  let out = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === '*') out += '%'
    else if (c === '?') out += '_'
    else if (c === '[' && glob[i + 2] === ']') { out += escapeLike(glob[i + 1]); i += 2 } else if (c === '[') {
      throw new Error(`granule filter: unsupported GLOB class in ${JSON.stringify(glob)}`)
    } else out += escapeLike(c)
  }
  return out
}
const escapeLike = (c: string) => (c === '%' || c === '_' || c === '\\' ? '\\' + c : c)

/** SQLite's LIKE ... ESCAPE '\' takes a lone trailing backslash literally; PostgreSQL refuses it. */
function likePattern (p: string): string {
  let out = ''
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') { out += i + 1 < p.length ? p[i] + p[++i] : '\\\\' } else out += p[i]
  }
  return out
}

/**
 * The PostgreSQL SQL of a filter whose attribute JSON column is g.attrs; `bind` adds a parameter
 * and returns its placeholder.
 */
export function pgFilter (filter: CompiledFilter, bind: (v: unknown) => string): string {
  const { sql, params } = filter
  let p = 0
  const next = (): unknown => {
    if (p >= params.length) throw new Error('granule filter: more placeholders than parameters')
    return params[p++]
  }
  const out: string[] = []
  let after: 'number' | 'like' | 'glob' | undefined // what the next value parameter is
  TOKEN.lastIndex = 0
  while (TOKEN.lastIndex < sql.length) {
    if (/^\s*$/.test(sql.slice(TOKEN.lastIndex))) break
    const at = TOKEN.lastIndex
    const m = TOKEN.exec(sql)
    if (!m) throw new Error(`granule filter: unexpected SQL at ${JSON.stringify(sql.slice(at, at + 30))}`)
    const [, attr, str, word, num, op, punct] = m
    if (attr !== undefined) {
      const key = bind(attributeOf(next()))
      const rest = sql.slice(TOKEN.lastIndex)
      out.push(/^\s*(LIKE|GLOB)\b/.test(rest) ? `mw_json_text(g.attrs::jsonb -> ${key})` : `mw_json_value(g.attrs::jsonb -> ${key})`)
    } else if (str !== undefined) {
      if (str !== "'\\'" || out[out.length - 1] !== 'ESCAPE') throw new Error(`granule filter: unexpected literal ${str}`)
      out.push(str)
    } else if (word !== undefined) {
      const up = word.toUpperCase()
      if (BBOX_COLUMNS.has(word)) { out.push(word); after = 'number' } else if (up === 'LIKE') { out.push('COLLATE "C" ILIKE'); after = 'like' } else if (up === 'GLOB') { out.push('COLLATE "C" LIKE'); after = 'glob' } else if (up === 'ESCAPE') out.push('ESCAPE')
      else if (KEYWORDS.has(up)) out.push(up)
      else throw new Error(`granule filter: unexpected word ${word}`)
    } else if (num !== undefined) {
      if (num !== '0' && num !== '1') throw new Error(`granule filter: unexpected number ${num}`)
      out.push(num === '1' ? 'TRUE' : 'FALSE')
    } else if (op !== undefined) {
      out.push(op === '!=' ? '<>' : op)
    } else if (punct === '?') {
      const v = next()
      if (after === 'number') out.push(`${bind(v)}::double precision`)
      else if (after === 'like') out.push(`${bind(likePattern(String(v)))}::text`)
      else if (after === 'glob') out.push(`${bind(globToLike(String(v)))}::text ESCAPE '\\'`)
      else out.push(`mw_json_value(${bind(JSON.stringify(typeof v === 'boolean' ? (v ? 1 : 0) : v ?? null))}::jsonb)`)
      after = undefined
    } else out.push(punct)
  }
  if (p !== params.length) throw new Error('granule filter: more parameters than placeholders')
  return out.join(' ')
}
