// The embedded catalog database (better-sqlite3). WAL with synchronous=FULL: a committed
// transaction is on disk before the response that acknowledges it.
import { Database } from './sqlite-driver.js'
import type BetterSqlite3 from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import { ALL_MIGRATIONS, type Migration } from '../migrations.js'
import { foldName } from '../../files/names.js'

export type Db = BetterSqlite3.Database

export function openDatabase (dataDir: string, migrations: Migration[] = ALL_MIGRATIONS): Db {
  fs.mkdirSync(dataDir, { recursive: true })
  const db = new Database(path.join(dataDir, 'catalog.db'))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  // Name comparisons that ignore case use the same folding in SQL as in JavaScript.
  db.function('mw_fold', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? foldName(s) : s))
  migrate(db, migrations)
  return db
}

/** Applies, in order and each in its own transaction, the migrations not yet recorded. */
export function migrate (db: Db, migrations: Migration[]): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)')
  const done = new Set(db.prepare('SELECT id FROM schema_migrations').pluck().all() as string[])
  const applied: string[] = []
  const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)')
  for (const m of migrations) {
    if (done.has(m.id)) continue
    // A table rebuild (create, copy, drop, rename) would cascade its drop into the referring tables
    // with foreign keys on; they are off for it (outside the transaction, as SQLite requires) and
    // every key is checked before the commit.
    if (m.foreignKeysOff) db.pragma('foreign_keys = OFF')
    try {
      db.transaction(() => {
        db.exec(m.sql)
        if (m.foreignKeysOff && (db.pragma('foreign_key_check') as unknown[]).length > 0) throw new Error(`migration ${m.id} left rows whose foreign keys point nowhere`)
        record.run(m.id, new Date().toISOString())
      })()
    } finally {
      if (m.foreignKeysOff) db.pragma('foreign_keys = ON')
    }
    applied.push(m.id)
  }
  return applied
}

/**
 * Runs `fn` (one statement or transaction) with synchronous=NORMAL, then restores the connection's
 * setting. For frequent bookkeeping commits on the event loop (tile usage, seed progress): in WAL
 * mode they stay atomic and survive a process crash, without an fsync each; only a power loss may
 * drop the last ones, and the next FULL commit syncs them with its own.
 */
export function relaxedSync<T> (db: Db, fn: () => T): T {
  const was = Number(db.pragma('synchronous', { simple: true }))
  if (was <= 1) return fn()
  db.pragma('synchronous = NORMAL')
  try { return fn() } finally { db.pragma(`synchronous = ${was}`) }
}
