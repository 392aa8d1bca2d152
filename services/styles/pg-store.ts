// StyleStore in PostgreSQL, the counterpart of sqlite-store.ts: the same tables (services/storage/pg/
// schema.ts), each write method one transaction. Names and file names are also written folded
// (name_key, filename_key, foldName): the lookups that ignore case compare those columns, and their
// UNIQUE indexes refuse, on every node at once, a second style whose name or file name folds the
// same in the folder; the loser of such a race gets the error the check before the write gives.
// Every write of a style row announces 'styles'; a layer whose style references change, 'catalog'.
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import { createPgCatalogRowWriter } from '../catalog/pg-catalog-rows.js'
import { foldName } from '../files/names.js'
import { styleRef, type NewStyleRow, type StyleRow, type StyleStore, type StyleSwitch } from './store.js'
import { intentFromRow, layerRefFromRow, styleClash, styleFromRow, styleParams } from './store-rows.js'

/** The file of an entry `j` of a row's images (JSONB): a plain name (older rows) or a StyleImage. */
const IMAGE_FILE = "(CASE jsonb_typeof(j) WHEN 'object' THEN j ->> 'file' ELSE j #>> '{}' END)"
const IN_FOLDER = "COALESCE(workspace, '') = $1"
/** The unique indexes on a folder's style names and file names (exact and folded). */
const NAME_INDEXES = new Set(['styles_name', 'styles_name_key', 'styles_filename', 'styles_filename_key'])

export function createPgStyleStore (db: PgDatabase): StyleStore {
  const rows = createPgCatalogRowWriter()

  const one = async (sql: string, workspace: string | undefined, value: string): Promise<StyleRow | undefined> => {
    const r = (await db.query(sql, [workspace ?? '', value])).rows[0]
    return r ? styleFromRow(r) : undefined
  }
  const getFolded = (workspace: string | undefined, name: string) =>
    one(`SELECT * FROM styles WHERE ${IN_FOLDER} AND name_key = $2`, workspace, foldName(name))
  const byFilenameFolded = (workspace: string | undefined, filename: string) =>
    one(`SELECT * FROM styles WHERE ${IN_FOLDER} AND filename_key = $2 ORDER BY id LIMIT 1`, workspace, foldName(filename))

  /**
   * Runs a write of style `s`'s row. A name or file name that another style of the folder has
   * (ignoring case) fails on a unique index, also when another node committed it a moment ago:
   * that is refused as the SQLite store refuses it, naming the style that holds it. Should that
   * style be gone by the time it is looked up, the write is tried again.
   */
  const writing = async <T>(s: NewStyleRow & { id?: number }, fn: (c: PgClient) => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await db.transaction(fn)
      } catch (err) {
        const e = err as { code?: string, constraint?: string }
        if (e.code !== '23505' || e.constraint === undefined || !NAME_INDEXES.has(e.constraint)) throw err
        const clash = styleClash(s, await getFolded(s.workspace, s.name), await byFilenameFolded(s.workspace, s.filename))
        if (clash) throw clash
        if (attempt >= 3) throw err
      }
    }
  }
  /** The values of the styles columns $1..$11 in the order the statements below name them. */
  const values = (s: NewStyleRow & { id?: number }) => {
    const p = styleParams(s)
    return [p.workspace, p.name, foldName(p.name), p.format, p.languageVersion, p.filename, foldName(p.filename), p.file, p.revision, p.images, p.now]
  }
  const addIntents = async (c: PgClient, workspace: string | undefined, files: string[], backupTo?: string): Promise<number[]> => {
    const now = new Date().toISOString()
    const ids: number[] = []
    for (const f of files) {
      const r = await c.query<{ id: number }>('INSERT INTO style_file_intents (workspace, file, backup_to, created_at) VALUES ($1, $2, $3, $4) RETURNING id',
        [workspace ?? null, f, backupTo ?? null, now])
      ids.push(r.rows[0].id)
    }
    return ids
  }
  const clearIntents = async (c: PgClient, ids: number[]) => {
    if (ids.length > 0) await c.query('DELETE FROM style_file_intents WHERE id = ANY($1::bigint[])', [ids])
  }
  /** Writes what a switch of rows carries with it; returns the stale-file intent ids. */
  const switched = async (c: PgClient, change: StyleSwitch): Promise<number[]> => {
    for (const l of change.layers ?? []) {
      await rows.setLayerStyles(c, l.workspace, l.name, l.defaultStyle, l.styles)
      await notify(c, { topic: 'catalog', key: `${l.workspace}:${l.name}` })
    }
    await clearIntents(c, change.settled ?? [])
    return change.stale ? await addIntents(c, change.stale.workspace, change.stale.files, change.stale.backupTo) : []
  }
  /** Announces a change of the style rows `refs` name (a rename: its old and its new reference). */
  const announce = async (c: PgClient, ...refs: string[]) => {
    for (const key of new Set(refs)) await notify(c, { topic: 'styles', key })
  }
  /** The reference of the style row `id` as it is now, locked until the transaction ends. */
  const lockedRef = async (c: PgClient, id: number): Promise<string | undefined> => {
    const r = (await c.query<{ workspace: string | null, name: string }>('SELECT workspace, name FROM styles WHERE id = $1 FOR UPDATE', [id])).rows[0]
    return r ? styleRef({ workspace: r.workspace ?? undefined, name: r.name }) : undefined
  }

  return {
    async workspaceExists (ws) { return (await db.query('SELECT 1 FROM workspaces WHERE name = $1', [ws])).rows.length > 0 },
    async names (workspace) {
      const r = workspace === undefined
        ? await db.query<{ name: string }>('SELECT name FROM styles WHERE workspace IS NULL ORDER BY name COLLATE "C"')
        : await db.query<{ name: string }>('SELECT name FROM styles WHERE workspace = $1 ORDER BY name COLLATE "C"', [workspace])
      return r.rows.map((x) => x.name)
    },
    async get (workspace, name) { return await one(`SELECT * FROM styles WHERE ${IN_FOLDER} AND name = $2`, workspace, name) },
    getFolded,
    byFilenameFolded,
    async imageUsers (workspace, file) {
      const r = await db.query<{ id: number }>(`SELECT DISTINCT s.id FROM styles s, jsonb_array_elements(s.images::jsonb) j
        WHERE COALESCE(s.workspace, '') = $1 AND ${IMAGE_FILE} = $2 ORDER BY s.id`, [workspace ?? '', file])
      return r.rows.map((x) => x.id)
    },
    async layersNaming (a, b) {
      const r = await db.query(`SELECT l.workspace, l.name, l.default_style, l.styles FROM layers l
        WHERE l.default_style IN ($1, $2) OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(l.styles::jsonb) j WHERE j IN ($1, $2))
        ORDER BY l.workspace COLLATE "C", l.name COLLATE "C"`, [a, b])
      return r.rows.map(layerRefFromRow)
    },
    async insert (s, settled = []) {
      return await writing(s, async (c) => {
        const r = await c.query<{ id: number }>(`INSERT INTO styles (workspace, name, name_key, format, language_version, filename, filename_key, file, revision, images, created_at, modified_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING id`, values(s))
        await clearIntents(c, settled)
        await announce(c, styleRef(s))
        return r.rows[0].id
      })
    },
    async update (s, change = {}) {
      return await writing(s, async (c) => {
        const was = await lockedRef(c, s.id)
        await c.query(`UPDATE styles SET workspace = $1, name = $2, name_key = $3, format = $4, language_version = $5, filename = $6,
          filename_key = $7, file = $8, revision = $9, images = $10, modified_at = $11 WHERE id = $12`, [...values(s), s.id])
        const stale = await switched(c, change)
        await announce(c, ...(was === undefined ? [] : [was]), styleRef(s))
        return stale
      })
    },
    async remove (id, change = {}) {
      return await db.transaction(async (c) => {
        const was = await lockedRef(c, id)
        await c.query('DELETE FROM styles WHERE id = $1', [id])
        const stale = await switched(c, change)
        if (was !== undefined) await announce(c, was)
        return stale
      })
    },
    async addIntents (workspace, files, backupTo) { return await db.transaction((c) => addIntents(c, workspace, files, backupTo)) },
    async clearIntents (ids) { await db.transaction((c) => clearIntents(c, ids)) },
    async intents () {
      return (await db.query('SELECT id, workspace, file, backup_to FROM style_file_intents ORDER BY id')).rows.map(intentFromRow)
    },
    async referenced (workspace, file) {
      const r = await db.query(`SELECT 1 FROM styles s WHERE COALESCE(s.workspace, '') = $1 AND
        (s.file = $2 OR EXISTS (SELECT 1 FROM jsonb_array_elements(s.images::jsonb) j WHERE ${IMAGE_FILE} = $2)) LIMIT 1`, [workspace ?? '', file])
      return r.rows.length > 0
    }
  }
}
