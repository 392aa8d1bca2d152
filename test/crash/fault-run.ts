// Drives the workload against servers started with one fault point each: the server must kill
// itself exactly there (exit by SIGKILL, its last words name the point), and the next start must
// pass every invariant. One start per point: the start that checks the previous kill is the one
// armed with the next point.
import { checkInvariants, Disconnected, kill, makeEnv, Model, start, type Server } from './harness.js'
import { createWorkload, OPS, type OpName } from './workload.js'

import type { Test } from 'tap'
type TapLike = Pick<Test, 'teardown' | 'ok' | 'equal' | 'same' | 'comment'>

/** The ops that reach a point first, then every other op (async points fire during later ones). */
export function opsFor (point: string): OpName[] {
  const area = point.split('.')[0]
  const first: OpName[] = area === 'workspace' ? ['workspace']
    : area === 'style' ? ['styleZip', 'styleSld', 'styleZipReplace']
      : point === 'mosaic.harvestBeforeIndex' ? ['harvest']
        : point.startsWith('mosaic.delete') ? ['storeCycle', 'storeCycle']
        : area === 'mosaic' ? ['mosaicUpload']
          : area === 'granule' ? ['harvest', 'granuleDelete']
            : area === 'quota' && /Config/.test(point) ? ['quota']
              : area === 'masterpw' ? ['masterpw']
                : area === 'acl' ? ['aclAdd', 'aclUpdate']
                  : area === 'catalogMode' ? ['catalogMode']
                    : point.startsWith('seed.') ? ['seed', 'truncate']
                      : ['seedWait', 'truncate', 'seedWait'] // tiles and accounting flushes follow the seeding
  return [...first, ...OPS.filter((o) => !first.includes(o))]
}

export async function runFaultPoints (t: TapLike, points: string[], seed: number): Promise<void> {
  const env = makeEnv('mw-fault')
  t.teardown(env.cleanup)
  const m = new Model(env)
  const w = createWorkload(m, seed)
  let s: Server = await start(env)
  t.teardown(() => { s.child.kill('SIGKILL') })
  await w.setup(s) // the workspace and mosaic every op needs, before any point is armed
  await kill(s)
  s = await start(env, points[0])
  t.same(await checkInvariants(s, m), [], 'the invariants hold before the first fault')
  for (let i = 0; i < points.length; i++) {
    const point = points[i]
    let died = false
    outer: for (let cycle = 0; cycle < 3; cycle++) {
      for (const op of opsFor(point)) {
        try { await w.run(s, op) } catch (err) {
          if (err instanceof Disconnected) { died = true; break outer }
          throw err
        }
      }
    }
    // Points reached after the request that caused them (tile writes, accounting flushes): seed
    // until every task has finished, a few more times.
    for (let extra = 0; extra < 5 && !died; extra++) {
      try { await w.run(s, 'seedWait') } catch (err) {
        if (err instanceof Disconnected) died = true
        else throw err
      }
    }
    if (!died) { t.ok(false, `${point}: the stream ran three times without reaching the fault point`); await kill(s) }
    const exit = await s.exited
    t.equal(exit.signal, 'SIGKILL', `${point}: the process was killed by SIGKILL`)
    t.ok(s.output().includes(`fault point ${point.split('@')[0]}: SIGKILL`), `${point}: it died at the fault point`)
    s = await start(env, points[i + 1])
    const fails = await checkInvariants(s, m)
    t.same(fails, [], `${point}: every invariant holds after the restart`)
    t.same(w.violations, [], `${point}: no task id was handed out twice`)
    await w.setup(s)
  }
  await kill(s)
}
