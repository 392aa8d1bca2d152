// "Nothing changed" for hostile-input tests: a manifest of the
// data directory (relative path, size, sha256), with the catalog database compared by content
// rather than bytes (SQLite may touch its file without changing a row).
import fs from 'node:fs'
import path from 'node:path'
import { createHash } from 'node:crypto'

export function manifest (dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(dir, p)
      if (e.isDirectory()) { walk(p); continue }
      if (/^catalog\.db(-wal|-shm)?$/.test(rel)) continue
      const data = fs.readFileSync(p)
      out.push(`${rel}\t${data.length}\t${createHash('sha256').update(data).digest('hex')}`)
    }
  }
  walk(dir)
  return out.sort()
}

/** The loopback canary the SSRF and XXE tests assert zero hits on (test/hostile/canary.ts). */
export { startCanary as canary } from './hostile/canary.js'
