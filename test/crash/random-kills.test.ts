// kill -9 from outside at seeded random moments while two clients stream mixed changes (uploads
// included); after each kill the server restarts and the seven invariants hold. Fixed seed, a
// bounded number of kills.
import t from 'tap'

// Several server starts and kills: more than the suite's 180 s on a loaded 2-core machine.
t.setTimeout(600_000)
import { checkInvariants, kill, makeEnv, Model, rng, start } from './harness.js'
import { createWorkload } from './workload.js'

const SEED = 20261123
const KILLS = 8

t.test('SIGKILL at random moments of a mixed stream of changes loses nothing acknowledged', async (t) => {
  const env = makeEnv('mw-random')
  t.teardown(env.cleanup)
  const r = rng(SEED)
  const m = new Model(env)
  const w = createWorkload(m, SEED % 1000)
  let s = await start(env)
  t.teardown(() => { s.child.kill('SIGKILL') })
  await w.setup(s)
  for (let k = 0; k < KILLS; k++) {
    const delay = 150 + r.int(2500)
    const server = s
    const timer = setTimeout(() => server.child.kill('SIGKILL'), delay)
    const done = await Promise.all([0, 1].map((c) => w.stream(server, c, () => false)))
    clearTimeout(timer)
    await server.exited
    t.comment(`kill ${k + 1} after ${delay} ms: ${done.join(' + ')} changes acknowledged`)
    s = await start(env)
    t.same(await checkInvariants(s, m), [], `kill ${k + 1}: every invariant holds after the restart`)
    t.same(w.violations, [], `kill ${k + 1}: no task id was handed out twice`)
    await w.setup(s)
  }
  await kill(s)
})
