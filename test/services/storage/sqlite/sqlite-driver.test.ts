// better-sqlite3 is loaded through services/storage/sqlite-driver.ts only: version 12 aborts
// Node 24.19+ when an idle garbage collection frees a statement, and 13 does not load on Node 20,
// so the driver picks the build for the running Node. A direct import anywhere else would bring the
// crash back on the LTS line; the compiled code (where type-only imports are gone) is checked.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { Database } from '../../../../services/storage/sqlite/sqlite-driver.js'

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..')

t.test('no compiled module but the driver imports better-sqlite3', async (t) => {
  const offenders: string[] = []
  for (const dir of ['plugins', 'services', 'workers', 'bench', 'scripts', 'test']) {
    const root = path.join(DIST, dir)
    if (!fs.existsSync(root)) continue
    for (const f of fs.readdirSync(root, { recursive: true }).map(String)) {
      if (!f.endsWith('.js') || f.endsWith('sqlite-driver.js')) continue
      const text = fs.readFileSync(path.join(root, f), 'utf8')
      if (/from ['"]better-sqlite3(-napi)?['"]|require\(['"]better-sqlite3/.test(text)) offenders.push(`${dir}/${f}`)
    }
  }
  t.same(offenders, [], 'better-sqlite3 only through services/storage/sqlite-driver.ts')
})

t.test('the driver loads the Node-API build on Node 22 and later', async (t) => {
  const major = Number(process.versions.node.split('.')[0])
  const require = createRequire(import.meta.url)
  const expected = require(major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3')
  t.equal(Database, expected)
  const db = new Database(':memory:')
  t.equal(db.prepare('SELECT 40 + 2 AS v').pluck().get(), 42)
  db.close()
})
