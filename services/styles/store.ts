// The styles table (services/styles/migrations.ts) and the layer references to styles. SQLite is
// synchronous, so each method is one statement or one transaction.
import type Database from 'better-sqlite3'
import type { Db } from '../storage/database.js'

export interface StyleRow {
  id: number
  /** undefined for a global style. */
  workspace?: string
  name: string
  format: string
  languageVersion: string
  filename: string
  /** The SLD file that is live now, in the style's folder; undefined before content is PUT. */
  file?: string
  revision: number
  images: StyleImage[]
  createdAt: string
  modifiedAt: string
}

/**
 * An image of a style package: the name its SLD uses, and the file (relative to the style folder)
 * that holds its bytes. Rows written before images could share a name hold plain names (file = name).
 */
export interface StyleImage { name: string, file: string }

export interface LayerRef { workspace: string, name: string, defaultStyle?: string, styles: string[] }

/** A layer's reference to a style: 'ws:name' for a workspace style, 'name' for a global one. */
export function styleRef (s: { workspace?: string, name: string }): string {
  return s.workspace ? `${s.workspace}:${s.name}` : s.name
}

/** The file of an entry of a row's images: a plain name (older rows) or a StyleImage. */
const IMAGE_FILE = "(CASE j.type WHEN 'object' THEN json_extract(j.value, '$.file') ELSE j.value END)"

export function createStyleStore (db: Db) {
  const rowTo = (r: any): StyleRow => ({
    id: r.id,
    workspace: r.workspace ?? undefined,
    name: r.name,
    format: r.format,
    languageVersion: r.language_version,
    filename: r.filename,
    file: r.file ?? undefined,
    revision: r.revision,
    images: (JSON.parse(r.images) as Array<string | StyleImage>).map((i) => typeof i === 'string' ? { name: i, file: i } : i),
    createdAt: r.created_at,
    modifiedAt: r.modified_at
  })
  const q = {
    namesGlobal: db.prepare('SELECT name FROM styles WHERE workspace IS NULL ORDER BY name').pluck(),
    namesWs: db.prepare('SELECT name FROM styles WHERE workspace = ? ORDER BY name').pluck(),
    get: db.prepare('SELECT * FROM styles WHERE ifnull(workspace, \'\') = ? AND name = ?'),
    // Names and files that would be the same file on a case-insensitive file system.
    getFolded: db.prepare('SELECT * FROM styles WHERE ifnull(workspace, \'\') = ? AND mw_fold(name) = mw_fold(?)'),
    byFilenameFolded: db.prepare('SELECT * FROM styles WHERE ifnull(workspace, \'\') = ? AND mw_fold(filename) = mw_fold(?)'),
    imageUsers: db.prepare(`SELECT DISTINCT s.id FROM styles s, json_each(s.images) j WHERE ifnull(s.workspace, '') = ? AND ${IMAGE_FILE} = ?`).pluck(),
    insert: db.prepare(`INSERT INTO styles (workspace, name, format, language_version, filename, file, revision, images, created_at, modified_at)
      VALUES (@workspace, @name, @format, @languageVersion, @filename, @file, @revision, @images, @now, @now)`),
    update: db.prepare(`UPDATE styles SET workspace = @workspace, name = @name, format = @format, language_version = @languageVersion,
      filename = @filename, file = @file, revision = @revision, images = @images, modified_at = @now WHERE id = @id`),
    remove: db.prepare('DELETE FROM styles WHERE id = ?'),
    layersNaming: db.prepare(`SELECT l.workspace, l.name, l.default_style, l.styles FROM layers l
      WHERE l.default_style IN (?, ?) OR EXISTS (SELECT 1 FROM json_each(l.styles) j WHERE j.value IN (?, ?))`),
    setLayerStyles: db.prepare('UPDATE layers SET default_style = ?, styles = ? WHERE workspace = ? AND name = ?'),
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
    return r ? rowTo(r) : undefined
  }
  const params = (s: Omit<StyleRow, 'id' | 'createdAt' | 'modifiedAt'> & { id?: number }) => ({
    id: s.id,
    workspace: s.workspace ?? null,
    name: s.name,
    format: s.format,
    languageVersion: s.languageVersion,
    filename: s.filename,
    file: s.file ?? null,
    revision: s.revision,
    images: JSON.stringify(s.images),
    now: new Date().toISOString()
  })

  return {
    workspaceExists: (ws: string) => q.workspace.get(ws) !== undefined,
    names: (workspace?: string) => (workspace === undefined ? q.namesGlobal.all() : q.namesWs.all(workspace)) as string[],
    get: (workspace: string | undefined, name: string) => one(q.get, workspace, name),
    /** A style whose name equals `name` ignoring (ASCII) case. */
    getFolded: (workspace: string | undefined, name: string) => one(q.getFolded, workspace, name),
    /** A style whose file name equals `filename` ignoring (ASCII) case. */
    byFilenameFolded: (workspace: string | undefined, filename: string) => one(q.byFilenameFolded, workspace, filename),
    /** Ids of the styles of a folder whose images include the file. */
    imageUsers: (workspace: string | undefined, file: string) => q.imageUsers.all(workspace ?? '', file) as number[],
    insert (s: Omit<StyleRow, 'id' | 'createdAt' | 'modifiedAt'>): number {
      return Number(q.insert.run(params(s)).lastInsertRowid)
    },
    update (s: StyleRow): void { q.update.run(params(s)) },
    remove (id: number): void { q.remove.run(id) },
    /** Layers whose default or alternate styles contain one of two reference strings. */
    layersNaming (a: string, b: string): LayerRef[] {
      return (q.layersNaming.all(a, b, a, b) as any[]).map((r) => ({
        workspace: r.workspace, name: r.name, defaultStyle: r.default_style ?? undefined, styles: JSON.parse(r.styles)
      }))
    },
    setLayerStyles (l: LayerRef): void {
      q.setLayerStyles.run(l.defaultStyle ?? null, JSON.stringify(l.styles), l.workspace, l.name)
    },
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    /** Records files that must not outlive a crash unless a style points to them (ids to clear). */
    addIntents (workspace: string | undefined, files: string[], backupTo?: string): number[] {
      const now = new Date().toISOString()
      return db.transaction(() => files.map((f) => Number(q.addIntent.run(workspace ?? null, f, backupTo ?? null, now).lastInsertRowid)))()
    },
    clearIntents (ids: number[]): void { db.transaction(() => { for (const id of ids) q.clearIntent.run(id) })() },
    intents (): Array<{ id: number, workspace?: string, file: string, backupTo?: string }> {
      return (q.intents.all() as any[]).map((r) => ({ id: r.id, workspace: r.workspace ?? undefined, file: r.file, backupTo: r.backup_to ?? undefined }))
    },
    /** Whether a style in the folder points to the file (its live SLD or one of its images). */
    referenced (workspace: string | undefined, file: string): boolean {
      return q.references.get(workspace ?? '', file, file) !== undefined
    }
  }
}
export type StyleStore = ReturnType<typeof createStyleStore>
