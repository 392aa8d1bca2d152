// Every numbered row of the spec's hostile-input table is a test somewhere: each test name carries
// "[hostile #N]". This reads the test sources (beside the compiled tests' root) and lists the rows
// no test names, so a row cannot silently lose its test.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROWS = 62
const testRoot = fileURLToPath(new URL('../../../test', import.meta.url))

async function sources (dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...await sources(path))
    else if (entry.name.endsWith('.test.ts')) out.push(path)
  }
  return out
}

t.test('every hostile-input row of the spec is tagged by a test', async (t) => {
  const tagged = new Set<number>()
  for (const file of await sources(testRoot)) {
    for (const m of (await readFile(file, 'utf8')).matchAll(/\[hostile #(\d+)\]/g)) tagged.add(Number(m[1]))
  }
  const missing = Array.from({ length: ROWS }, (_, i) => i + 1).filter((n) => !tagged.has(n))
  t.same(missing, [], 'rows without a test')
  t.same([...tagged].filter((n) => n < 1 || n > ROWS), [], 'tags naming no row of the spec')
})
