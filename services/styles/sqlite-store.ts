// StyleStore in the embedded SQLite database: the styles table (services/styles/migrations.ts), the
// style references of layers and the style file intents; each write method is one transaction.
import type Database from 'better-sqlite3'
import type { Db } from '../storage/sqlite/database.js'
import { createCatalogRowWriter } from '../catalog/sqlite-catalog-rows.js'
import type { NewStyleRow, StyleRow, StyleStore, StyleSwitch } from './store.js'
import { intentFromRow, layerRefFromRow, styleClash, styleFromRow, styleParams } from './store-rows.js'

/** The file of an entry of a row's images: a plain name (older rows) or a StyleImage. */
const IMAGE_FILE = "(CASE j.type WHEN 'object' THEN json_extract(j.value, '$.file') ELSE j.value END)"

export function createSqliteStyleStore (db: Db): StyleStore {
  const rows = createCatalogRowWriter(db)
  const q = {
    namesGlobal: db.prepare('SELECT name FROM styles WHERE workspace IS NULL ORDER BY name').pluck(),
    namesWs: db.prepare('SELECT name FROM styles WHERE workspace = ? ORDER BY name').pluck(),
    get: db.prepare('SELECT * FROM styles WHERE ifnull(workspace, \'\') = ? AND name = ?'),
    // Names and files that would be the same file on a case-insensitive file system.
    getFolded: db.prepare('SELECT * FROM styles WHERE ifnull(workspace, \'\') = ? AND mw_fold(name) = mw_fold(?)'),
    byFilenameFolded: db.prepare('SELECT * FROM styles WHERE ifnull(workspace, \'\') = ? AND mw_fold(filename) = mw_fold(?)'),
    imageUsers: db.prepare(`SELECT DISTINCT s.id FROM styles s, json_each(s.images) j WHERE ifnull(s.workspace, '') = ? AND ${IMAGE_FILE} = ? ORDER BY s.id`).pluck(),
    insert: db.prepare(`INSERT INTO styles (workspace, name, format, language_version, filename, file, revision, images, created_at, modified_at)
      VALUES (@workspace, @name, @format, @languageVersion, @filename, @file, @revision, @images, @now, @now)`),
    update: db.prepare(`UPDATE styles SET workspace = @workspace, name = @name, format = @format, language_version = @languageVersion,
      filename = @filename, file = @file, revision = @revision, images = @images, modified_at = @now WHERE id = @id`),
    remove: db.prepare('DELETE FROM styles WHERE id = ?'),
    layersNaming: db.prepare(`SELECT l.workspace, l.name, l.default_style, l.styles FROM layers l
      WHERE l.default_style IN (?, ?) OR EXISTS (SELECT 1 FROM json_each(l.styles) j WHERE j.value IN (?, ?)) ORDER BY l.workspace, l.name`),
    workspace: db.prepare('SELECT 1 FROM workspaces WHERE name = ?').pluck(),
    addIntent: db.prepare('INSERT INTO style_file_intents (workspace, file, backup_to, created_at) VALUES (?, ?, ?, ?)'),
    clearIntent: db.prepare('DELETE FROM style_file_intents WHERE id = ?'),
    intents: db.prepare('SELECT id, workspace, file, backup_to FROM style_file_intents ORDER BY id'),
    references: db.prepare(`SELECT 1 FROM styles s WHERE ifnull(s.workspace, '') = ? AND
      (s.file = ? OR EXISTS (SELECT 1 FROM json_each(s.images) j WHERE ${IMAGE_FILE} = ?))`).pluck()
  }
  /** The style a lookup statement finds in a workspace's folder (undefined = the global one). */
  const one = (stmt: Database.Statement<unknown[]>, workspace: string | undefined, value: string): StyleRow | undefined => {
    const r = stmt.get(workspace ?? '', value)
    return r ? styleFromRow(r) : undefined
  }
  /** Refuses a name or file name another style of the folder has, ignoring case. */
  const checkFree = (s: NewStyleRow & { id?: number }) => {
    const clash = styleClash(s, one(q.getFolded, s.workspace, s.name), one(q.byFilenameFolded, s.workspace, s.filename))
    if (clash) throw clash
  }
  const addIntents = (workspace: string | undefined, files: string[], backupTo?: string): number[] => {
    const now = new Date().toISOString()
    return files.map((f) => Number(q.addIntent.run(workspace ?? null, f, backupTo ?? null, now).lastInsertRowid))
  }
  const clearIntents = (ids: number[]) => { for (const id of ids) q.clearIntent.run(id) }
  /** Writes what a switch of rows carries with it; returns the stale-file intent ids. */
  const switched = (change: StyleSwitch): number[] => {
    for (const l of change.layers ?? []) rows.setLayerStyles(l.workspace, l.name, l.defaultStyle, l.styles)
    clearIntents(change.settled ?? [])
    return change.stale ? addIntents(change.stale.workspace, change.stale.files, change.stale.backupTo) : []
  }

  return {
    async workspaceExists (ws) { return q.workspace.get(ws) !== undefined },
    async names (workspace) { return (workspace === undefined ? q.namesGlobal.all() : q.namesWs.all(workspace)) as string[] },
    async get (workspace, name) { return one(q.get, workspace, name) },
    async getFolded (workspace, name) { return one(q.getFolded, workspace, name) },
    async byFilenameFolded (workspace, filename) { return one(q.byFilenameFolded, workspace, filename) },
    async imageUsers (workspace, file) { return q.imageUsers.all(workspace ?? '', file) as number[] },
    async layersNaming (a, b) {
      return (q.layersNaming.all(a, b, a, b) as any[]).map(layerRefFromRow)
    },
    async insert (s: NewStyleRow, settled = []) {
      return db.transaction(() => {
        checkFree(s)
        const id = Number(q.insert.run(styleParams(s)).lastInsertRowid)
        clearIntents(settled)
        return id
      })()
    },
    async update (s, change = {}) {
      return db.transaction(() => {
        checkFree(s)
        q.update.run(styleParams(s))
        return switched(change)
      })()
    },
    async remove (id, change = {}) {
      return db.transaction(() => { q.remove.run(id); return switched(change) })()
    },
    async addIntents (workspace, files, backupTo) { return db.transaction(() => addIntents(workspace, files, backupTo))() },
    async clearIntents (ids) { db.transaction(() => clearIntents(ids))() },
    async intents () {
      return (q.intents.all() as any[]).map(intentFromRow)
    },
    async referenced (workspace, file) { return q.references.get(workspace ?? '', file, file) !== undefined }
  }
}
