// One process per data directory (embedded database): an exclusive SQLite lock on
// <dataDir>/mapwarden.lock, taken before any start-up recovery and held for the life of the app.
// SQLite's locks are POSIX record locks, which the kernel drops when the process dies, so a kill -9
// never leaves a stale lock; SQLite also refuses a second connection of the same process, so two
// apps registered in one host on one directory collide too. The holder's pid is written beside it
// (mapwarden.pid) for the refusal message, since a locked database cannot be read.
import { Database } from './sqlite-driver.js'
import fs from 'node:fs'
import path from 'node:path'
import { DataDirInUse } from '../../errors.js'
import { writeFileAtomic } from '../../files/atomic.js'

export interface DataDirLock { release (): void }

export async function lockDataDir (dataDir: string): Promise<DataDirLock> {
  const db = new Database(path.join(dataDir, 'mapwarden.lock'), { timeout: 0 })
  try {
    db.pragma('locking_mode = EXCLUSIVE') // never give the lock back while open
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (pid INTEGER); COMMIT')
  } catch (err) {
    db.close()
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err
    let pid = 'unknown'
    try { pid = fs.readFileSync(path.join(dataDir, 'mapwarden.pid'), 'utf8').trim() || pid } catch { /* written just after the lock */ }
    throw DataDirInUse(dataDir, pid)
  }
  await writeFileAtomic(path.join(dataDir, 'mapwarden.pid'), `${process.pid}\n`)
  return { release: () => db.close() }
}
