import t from 'tap'
import { createRenderQueue } from '../../../services/render/render-queue.js'

/** A queue of one slot held by a render that ends when `free` is called; `order` records what started. */
function held () {
  const q = createRenderQueue({ slots: 1, interactive: 10 })
  const order: string[] = []
  let free!: () => void
  const first = q.run('seed', () => new Promise<void>((resolve) => { free = resolve }))
  const queued = (name: string, priority: 'seed' | 'interactive', key?: string) =>
    q.run(priority, async () => { order.push(name) }, key)
  return { q, order, queued, free: () => free(), first }
}

t.test('a seed render that a request waits for leaves the seed lane for the interactive one', async (t) => {
  const { q, order, queued, free, first } = held()
  const runs = [queued('seed a', 'seed', 'k/a'), queued('seed b', 'seed', 'k/b'), queued('early', 'interactive')]
  const release = q.hurry('k/b')
  runs.push(queued('late', 'interactive'))
  t.same(q.stats(), { running: 1, interactive: 3, seed: 1 })
  free()
  await Promise.all([first, ...runs])
  t.same(order, ['early', 'seed b', 'late', 'seed a'], 'ahead of the requests that came after the wait, behind those before')
  release()
  release() // (releasing twice is harmless)
})

t.test('a seed render arriving while its metatile is wanted takes the interactive lane; once released, the seed lane again', async (t) => {
  const { q, order, queued, free, first } = held()
  const release = q.hurry('k/a')
  const runs = [queued('other', 'interactive'), queued('seed a', 'seed', 'k/a'), queued('late', 'interactive')]
  release()
  runs.push(queued('seed a again', 'seed', 'k/a'), queued('last', 'interactive'))
  free()
  await Promise.all([first, ...runs])
  t.same(order, ['other', 'seed a', 'late', 'last', 'seed a again'])
})

t.test('a hurried seed render is not refused when the interactive places are taken', async (t) => {
  const q = createRenderQueue({ slots: 1, interactive: 1 })
  let free!: () => void
  const first = q.run('seed', () => new Promise<void>((resolve) => { free = resolve }))
  const waiting = q.run('interactive', async () => 'i')
  await t.rejects(q.run('interactive', async () => 'refused'), { code: 'MW_TILES_RENDER_QUEUE_FULL' })
  q.hurry('k')
  const seed = q.run('seed', async () => 's', 'k')
  free()
  t.same(await Promise.all([first, waiting, seed]), [undefined, 'i', 's'])
})
