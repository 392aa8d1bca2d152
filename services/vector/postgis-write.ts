// Edits of a PostGIS source (a WFS Transaction): every edit of a call in one database transaction on
// one connection, all or nothing. Inserts give the new features' keys (a key column without a
// default, an integer, gets max + 1 as GeoTools' JDBC store does for a non-incrementing key); updates
// and deletes run the filter compiled as a read's (whereSql); each answers the box of the geometries
// it touched, before and after, for the tile cache. Values are bound, names quoted; geometries
// arrive as WKB in the column's CRS (ST_GeomFromWKB with the column's SRID).
import type pg from 'pg'
import { quotePgName } from '../filters/pg.js'
import type { Envelope } from '../filters/tree.js'
import { InvalidFeatureQuery } from '../errors.js'
import { qualifiedTable, whereSql } from './postgis-source.js'
import type { Edit, EditResult, EditValue, TypeSchema } from './source.js'

export interface WritableType extends TypeSchema { keys: string[] }

const q = quotePgName

/** `BOX(x0 y0,x1 y1)` as an envelope; undefined for none. */
export function readBox (text: string | null | undefined): Envelope | undefined {
  const m = text ? /^BOX\(([-0-9.e+]+) ([-0-9.e+]+),([-0-9.e+]+) ([-0-9.e+]+)\)$/i.exec(text) : null
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] : undefined
}

export const unionOf = (a: Envelope | undefined, b: Envelope | undefined): Envelope | undefined =>
  !a ? b : !b ? a : [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])]

export function createPostgisWriter (pool: pg.Pool, o: { schema: string, looseBbox: boolean, exposePrimaryKeys: boolean }, describe: (type: string) => Promise<WritableType | undefined>) {
  const typeOf = async (name: string): Promise<WritableType> => {
    const d = await describe(name)
    if (!d) throw InvalidFeatureQuery(`no table or view ${JSON.stringify(name)} in schema ${JSON.stringify(o.schema)}`)
    return d
  }

  async function apply (c: pg.PoolClient, e: Edit): Promise<EditResult> {
    const d = await typeOf(e.type)
    const table = qualifiedTable(o.schema, d.name)
    const g = d.geometry ? q(d.geometry.name) : undefined
    const writable = new Set([...d.attributes.map((a) => a.name), ...(o.exposePrimaryKeys ? d.keys : [])])
    const column = (name: string) => {
      if (!writable.has(name)) throw InvalidFeatureQuery(`${d.name} has no attribute ${JSON.stringify(name)}`)
      return q(name)
    }
    const known = new Set([...d.attributes.map((a) => a.name), ...d.keys])
    const check = (name: string) => {
      if (!known.has(name)) throw InvalidFeatureQuery(`${d.name} has no attribute ${JSON.stringify(name)}`)
      return q(name)
    }
    const valueSql = (name: string, v: EditValue, bind: (v: unknown) => string) =>
      Buffer.isBuffer(v) && name === d.geometry?.name ? `ST_GeomFromWKB(${bind(v)}, ${bind(d.geometry.srid)}::integer)` : bind(v)
    if (e.kind === 'insert') {
      // Key columns the feature does not give and the table does not fill: max + 1 for an integer.
      const keyInfo = d.keys.length === 0 ? [] : (await c.query<{ attname: string, filled: boolean, typname: string }>(`SELECT a.attname, (a.atthasdef OR a.attidentity <> '') AS filled, t.typname
        FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = $1::regclass AND a.attname = ANY($2::text[])`, [table, d.keys])).rows
      const ids: string[] = []
      let area: Envelope | undefined
      for (const f of e.features) {
        const values: unknown[] = []
        const bind = (v: unknown) => { values.push(v); return `$${values.length}` }
        const cols: string[] = []
        const vals: string[] = []
        for (const [name, v] of Object.entries(f)) { cols.push(column(name)); vals.push(valueSql(name, v, bind)) }
        for (const k of keyInfo) {
          if (k.filled || Object.hasOwn(f, k.attname)) continue
          if (!['int2', 'int4', 'int8', 'numeric'].includes(k.typname)) throw InvalidFeatureQuery(`${d.name}'s key ${JSON.stringify(k.attname)} has no default and is no number: a new feature needs it given`)
          cols.push(q(k.attname))
          vals.push(`(SELECT COALESCE(max(${q(k.attname)}), 0) + 1 FROM ${table})`)
        }
        const returning = [...d.keys.map((k, i) => `${q(k)}::text AS mw_k${i}`), `${g ? `Box2D(${g})::text` : 'NULL::text'} AS mw_box`]
        const text = cols.length > 0
          ? `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${vals.join(', ')}) RETURNING ${returning.join(', ')}`
          : `INSERT INTO ${table} DEFAULT VALUES RETURNING ${returning.join(', ')}`
        const row = (await c.query<Record<string, string | null>>(text, values)).rows[0]
        if (d.keys.length > 0) ids.push(d.keys.map((_, i) => String(row[`mw_k${i}`])).join('.'))
        area = unionOf(area, readBox(row.mw_box))
      }
      return { count: e.features.length, ids, ...(area ? { area } : {}) }
    }
    const values: unknown[] = []
    const bind = (v: unknown) => { values.push(v); return `$${values.length}` }
    const where = whereSql(d, { ...(e.filter ? { filter: e.filter } : {}) }, d.keys, o.looseBbox, bind, check)
    const cond = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''
    const geomOut = g ? `${g} AS mw_g` : 'NULL::geometry AS mw_g'
    if (e.kind === 'delete') {
      const r = await c.query<{ n: number, e: string | null }>(`WITH d AS (DELETE FROM ${table}${cond} RETURNING ${geomOut}) SELECT count(*)::int AS n, ST_Extent(mw_g)::text AS e FROM d`, values)
      const area = readBox(r.rows[0].e)
      return { count: r.rows[0].n, ids: [], ...(area ? { area } : {}) }
    }
    const before = g ? readBox((await c.query<{ e: string | null }>(`SELECT ST_Extent(${g})::text AS e FROM ${table}${cond}`, values)).rows[0].e) : undefined
    const sets = Object.entries(e.values).map(([name, v]) => `${column(name)} = ${valueSql(name, v, bind)}`)
    if (sets.length === 0) throw InvalidFeatureQuery(`an update of ${d.name} sets no property`)
    const r = await c.query<{ n: number, e: string | null }>(`WITH u AS (UPDATE ${table} SET ${sets.join(', ')}${cond} RETURNING ${geomOut}) SELECT count(*)::int AS n, ST_Extent(mw_g)::text AS e FROM u`, values)
    const area = unionOf(before, readBox(r.rows[0].e))
    return { count: r.rows[0].n, ids: [], ...(area ? { area } : {}) }
  }

  return async function write (edits: Edit[]): Promise<EditResult[]> {
    const c = await pool.connect()
    let broken = false
    try {
      await c.query('BEGIN')
      try {
        const out: EditResult[] = []
        for (const e of edits) out.push(await apply(c, e))
        await c.query('COMMIT')
        return out
      } catch (err) {
        try { await c.query('ROLLBACK') } catch { broken = true }
        // A value the column cannot hold, a constraint: the client's edit, not the server's trouble.
        const code = (err as { code?: unknown }).code
        if (typeof code === 'string' && /^(22|23|42804)/.test(code)) throw InvalidFeatureQuery(`the database refused the edit: ${(err as Error).message}`)
        throw err
      }
    } finally {
      c.release(broken ? true : undefined)
    }
  }
}
