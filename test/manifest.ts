// "Nothing changed" for hostile-input tests (../shared/spec/hostile-inputs.md): a manifest of the
// data directory (relative path, size, sha256), with the catalog database compared by content
// rather than bytes (SQLite may touch its file without changing a row).
import fs from 'node:fs'
import path from 'node:path'
import { createHash } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

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

/** A loopback HTTP server that counts the requests it gets (SSRF and XXE tests assert zero). */
export async function canary (): Promise<{ url: string, hits: () => number, close: () => Promise<void> }> {
  let hits = 0
  const server = http.createServer((_req, res) => { hits++; res.end('canary') })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, hits: () => hits, close: () => new Promise((resolve) => server.close(() => resolve())) }
}
