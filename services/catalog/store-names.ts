// Store names that differ only in case are one folder on a case-insensitive file system: a new
// store whose name folds (Unicode case folding, SQL function mw_fold) to an existing one's is refused.
import type { Db } from '../storage/database.js'
import { StoreNameClash } from '../errors.js'

/** Throws when another store of the workspace has a name equal to `name` but for case. */
export function checkStoreName (db: Db, workspace: string, name: string): void {
  const other = db.prepare('SELECT name FROM stores WHERE workspace = ? AND mw_fold(name) = mw_fold(?) AND name <> ?').pluck().get(workspace, name, name) as string | undefined
  if (other !== undefined) throw StoreNameClash(name, other)
}
