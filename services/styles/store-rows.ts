// What the SQLite and PostgreSQL style stores share: the mapping between the tables' rows (the same
// columns in both) and StyleRow, LayerRef and intents, and the errors a write refuses a name with.
import { StyleExists, StyleResourceExists, type MapwardenError } from '../errors.js'
import type { LayerRef, NewStyleRow, StyleImage, StyleRow } from './store.js'

export function styleFromRow (r: any): StyleRow {
  return {
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
  }
}

/** A style's column values (images as JSON, absent values NULL) and the time of the write. */
export function styleParams (s: NewStyleRow & { id?: number }) {
  return {
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
  }
}

export function layerRefFromRow (r: any): LayerRef {
  return { workspace: r.workspace, name: r.name, defaultStyle: r.default_style ?? undefined, styles: JSON.parse(r.styles) }
}

export function intentFromRow (r: any): { id: number, workspace?: string, file: string, backupTo?: string } {
  return { id: r.id, workspace: r.workspace ?? undefined, file: r.file, backupTo: r.backup_to ?? undefined }
}

/**
 * Why a style (`s`; its id when it exists) may not have its name and file name: another style of
 * the folder with a name (`sameName`) or file name (`sameFile`) equal ignoring case. The two files
 * would be one on a case-insensitive file system. Undefined when both are free.
 */
export function styleClash (s: { id?: number, name: string, filename: string }, sameName?: StyleRow, sameFile?: StyleRow): MapwardenError | undefined {
  if (sameName && sameName.id !== s.id) return StyleExists(sameName.name === s.name ? s.name : `${s.name} (as ${sameName.name})`)
  if (sameFile && sameFile.id !== s.id) return StyleResourceExists(sameFile.filename === s.filename ? s.filename : `${s.filename} (as ${sameFile.filename})`)
  return undefined
}
