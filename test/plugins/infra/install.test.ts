// A supported Node installs without warnings (issue 31, 6): no package of the lock file declares an
// engine range that leaves out a supported Node (package.json's engines: 20 from 20.19, and the LTS
// line 24), as npm would warn EBADENGINE for it on every install. better-sqlite3 13 (Node 22 and
// later only) is therefore not in the lock: scripts/install-sqlite-napi.sh adds it on Node 22+.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..')
const require = createRequire(import.meta.url)
const semver = require('semver') as { satisfies (version: string, range: string): boolean }

interface LockEntry { version?: string, engines?: { node?: string } | string[], optional?: boolean, os?: string[], cpu?: string[] }

t.test('no package in the lock file excludes a supported Node', async (t) => {
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }, config: { betterSqlite3Napi: string } }
  const supported = ['20.19.0', '20.20.0', '24.0.0', '24.21.0']
  for (const v of supported) t.ok(semver.satisfies(v, pkg.engines.node), `package.json's engines accept ${v}`)
  const refusing: string[] = []
  for (const [where, entry] of Object.entries(lock.packages)) {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node
    if (!where || !range) continue
    // Platform packages of another system (esbuild's, sharp's) are never installed here.
    if (entry.optional && (entry.os || entry.cpu)) continue
    const out = supported.filter((v) => !semver.satisfies(v, range))
    if (out.length) refusing.push(`${where}@${entry.version} wants node ${range} (not ${out.join(', ')})`)
  }
  t.same(refusing, [], 'every package accepts every supported Node')
  t.notOk(lock.packages['node_modules/better-sqlite3-napi'], 'better-sqlite3 13 is not a locked dependency')
  t.match(pkg.config.betterSqlite3Napi, /^13\.\d+\.\d+$/, 'the install script pins better-sqlite3 13')
})
