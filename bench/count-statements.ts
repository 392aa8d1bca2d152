// Loaded before a built server the cluster bench starts (node --import): counts every statement the
// process sends to PostgreSQL (pg.Client.prototype.query: its pools, the change listener, pg-boss),
// by what it is for, and writes the counts as JSON to MW_BENCH_STATEMENTS_FILE ten times a second.
// Bench only: the server never loads it otherwise.
import fs from 'node:fs'
import pg from 'pg'

const file = process.env.MW_BENCH_STATEMENTS_FILE
if (file) {
  /** What a statement is for, by its text. */
  const KINDS: Array<[string, RegExp]> = [
    ['quota', /\bdq_|mw_dq_/],
    ['lock', /pg_advisory_(un)?lock\(28024/],
    ['plan', /mosaic_granules|mosaic_stores|JOIN resources r/],
    ['queue', /pgboss\./],
    ['seed', /\bseed_|pg_notify|^(BEGIN|COMMIT|ROLLBACK)\b/]
  ]
  const counts: Record<string, number> = { total: 0, quota: 0, lock: 0, plan: 0, queue: 0, seed: 0, other: 0 }
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0]
    const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text ?? ''
    counts.total++
    counts[KINDS.find(([, re]) => re.test(text))?.[0] ?? 'other']++
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof query
  const write = () => { fs.writeFileSync(`${file}.tmp`, JSON.stringify(counts)); fs.renameSync(`${file}.tmp`, file) }
  setInterval(write, 100).unref()
  process.on('exit', write)
}
