// The bounded pending queue behind the load bench's 10,000-POST burst (bench/load.ts; hostile
// case 43 is in settings.test.ts): past MAPWARDEN_MAX_PENDING_TASKS a seed
// request is 429 with a text/plain message, creates nothing, and the task list never grows past
// the running slots plus the cap.
import t from 'tap'
import { ADMIN, BASE, hostileApp, assertMessage } from './refuse.js'
import { createMosaic, pattern, rgbTiff } from '../fixtures/seed/mosaic.js'

const SEED = `${BASE}/gwc/rest/seed`

t.test('[load] a burst of seed POSTs past the pending-task cap is answered 429; the queue stays bounded', async (t) => {
  const h = await hostileApp(t, { taskSlots: 1, maxPendingTasks: 5 })
  const layer = await createMosaic(h.app, 'topp', 'world', { 'world.tif': rgbTiff(16, 16, [-20, -10, 20, 30], pattern) })
  const body = JSON.stringify({ seedRequest: { name: layer, gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 20, format: 'image/png', type: 'seed', threadCount: 1 } })
  const burst = await Promise.all(Array.from({ length: 60 }, () =>
    h.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: body })))
  const accepted = burst.filter((r) => r.statusCode === 200).length
  const refused = burst.filter((r) => r.statusCode === 429)
  t.equal(accepted + refused.length, 60, 'every answer is 200 or 429')
  t.ok(accepted >= 1 && accepted <= 6, `at most one running plus five pending accepted (${accepted})`)
  t.ok(refused.length >= 54, `the rest refused (${refused.length})`)
  assertMessage(t, refused[0], 429, /too many pending seed tasks \(limit 5\)/i, '429')
  const list = JSON.parse((await h.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })).body)['long-array-array'] as unknown[]
  t.ok(list.length <= 6, `the task list is bounded (${list.length})`)
  await h.inject({ method: 'POST', url: SEED, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'kill_all=all' })
  await h.app.tileCache.breeder.idle()
  // After the queue drains, seeding is accepted again.
  const again = await h.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: body.replace('"zoomStop":20', '"zoomStop":1') })
  t.equal(again.statusCode, 200)
  await h.app.tileCache.breeder.idle()
})
