// Concurrency and interruption (hostile cases 58-62): racing writes to one
// style end in one whole version with a matching catalog entry; an upload cut off mid-stream over a
// real socket leaves nothing; kill_all during a truncate, and a seed racing a truncate on one layer,
// end with every task done or aborted and only whole tiles on disk.
import t from 'tap'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE } from '../helper.js'
import { fixture } from '../plugins/styles/helpers.js'
import { createMosaic, pattern, rgbTiff } from '../fixtures/seed/mosaic.js'
import { leftovers, snapshot, settled, type Tap } from './assert-b.js'
import { rawZip } from './zips.js'
import { INDEXER, TIMEREGEX, ELEVATIONREGEX } from '../fixtures/mosaics/make.js'
import { appRows } from '../fixtures/catalog-rows.js'

const REST = `${BASE}/rest`
const SEED = `${BASE}/gwc/rest/seed`
const SLD_A = fixture('rain.sld')
const SLD_B = fixture('classes-se.sld')
const TYPE_A = { 'content-type': 'application/vnd.ogc.sld+xml' }
const TYPE_B = { 'content-type': 'application/vnd.ogc.se+xml' }
const versionOf = (sld: string) => /<StyledLayerDescriptor[^>]*version="([^"]+)"/.exec(sld)![1]

/** Catalog and files agree: every style row names a file that exists; every file belongs to a row. */
async function catalogMatchesFiles (t: any, app: FastifyInstance, label: string) {
  const dir = path.join(app.config.dataDir, 'styles')
  const rows = await appRows(app, 'SELECT name, filename, file, images FROM styles WHERE workspace IS NULL') as Array<{ name: string, filename: string, file: string | null, images: string }>
  const owned = new Set<string>()
  for (const r of rows) {
    const file = r.file ?? r.filename
    owned.add(file)
    for (const i of JSON.parse(r.images) as string[]) owned.add(i)
    t.ok(fs.existsSync(path.join(dir, file)), `${label}: style ${r.name} has its file ${file}`)
  }
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile()) : []
  // A DELETE without purge keeps the SLD as <filename>.bak, as GeoServer does.
  for (const f of files.filter((f) => !f.endsWith('.bak'))) t.ok(owned.has(f), `${label}: file ${f} belongs to a style`)
  t.same(leftovers(app.config.dataDir), [], `${label}: no temp file`)
}

t.test('[hostile #58] two PUTs of one style with different bodies, 100 rounds: each 200, one whole body wins, the catalog matches it', async (t) => {
  const app = await build(t)
  let r = await app.inject({ method: 'POST', url: `${REST}/styles?name=race`, headers: { ...ADMIN, ...TYPE_A }, payload: SLD_A })
  t.equal(r.statusCode, 201)
  const winners = { A: 0, B: 0 }
  for (let round = 0; round < 100; round++) {
    const [a, b] = await Promise.all([
      app.inject({ method: 'PUT', url: `${REST}/styles/race`, headers: { ...ADMIN, ...TYPE_A }, payload: SLD_A }),
      app.inject({ method: 'PUT', url: `${REST}/styles/race`, headers: { ...ADMIN, ...TYPE_B }, payload: SLD_B })
    ])
    if (a.statusCode !== 200 || b.statusCode !== 200) t.fail(`round ${round}: ${a.statusCode} ${a.body} / ${b.statusCode} ${b.body}`)
    const body = (await app.inject({ url: `${REST}/styles/race.sld`, headers: ADMIN })).body
    const entry = JSON.parse((await app.inject({ url: `${REST}/styles/race.json`, headers: ADMIN })).body).style
    const which = body === SLD_A ? 'A' : body === SLD_B ? 'B' : undefined
    if (!which) { t.fail(`round ${round}: the file is neither body`); break }
    winners[which]++
    if (entry.languageVersion.version !== versionOf(body)) t.fail(`round ${round}: catalog says ${entry.languageVersion.version}, file is ${versionOf(body)}`)
  }
  t.equal(winners.A + winners.B, 100, `every round ended with one whole body (A ${winners.A}, B ${winners.B})`)
  await settled(app.config.dataDir)
  await catalogMatchesFiles(t, app, 'after 100 rounds')
})

t.test('[hostile #59] concurrent DELETE and PUT of one style: absent, or present and whole; catalog and files agree', async (t) => {
  const app = await build(t)
  const seen = { absent: 0, present: 0 }
  for (let round = 0; round < 50; round++) {
    const name = `s${round}`
    const c = await app.inject({ method: 'POST', url: `${REST}/styles?name=${name}`, headers: { ...ADMIN, ...TYPE_A }, payload: SLD_A })
    t.equal(c.statusCode, 201)
    const [del, put] = await Promise.all([
      app.inject({ method: 'DELETE', url: `${REST}/styles/${name}`, headers: ADMIN }),
      app.inject({ method: 'PUT', url: `${REST}/styles/${name}`, headers: { ...ADMIN, ...TYPE_B }, payload: SLD_B })
    ])
    if (![200, 404].includes(put.statusCode) || del.statusCode !== 200) t.fail(`round ${round}: DELETE ${del.statusCode} ${del.body}, PUT ${put.statusCode} ${put.body}`)
    const get = await app.inject({ url: `${REST}/styles/${name}.sld`, headers: ADMIN })
    if (get.statusCode === 404) seen.absent++
    else if (get.statusCode === 200 && (get.body === SLD_B || get.body === SLD_A)) seen.present++
    else t.fail(`round ${round}: GET ${get.statusCode} ${get.body.slice(0, 100)}`)
  }
  t.equal(seen.absent + seen.present, 50, `absent ${seen.absent}, present ${seen.present}`)
  await settled(app.config.dataDir)
  await catalogMatchesFiles(t, app, 'after 50 rounds')
})

t.test('[hostile #60] two concurrent POSTs creating one new style: exactly one 201, the other 403', async (t) => {
  const app = await build(t)
  for (let round = 0; round < 50; round++) {
    const url = `${REST}/styles?name=new${round}`
    const res = await Promise.all([
      app.inject({ method: 'POST', url, headers: { ...ADMIN, ...TYPE_A }, payload: SLD_A }),
      app.inject({ method: 'POST', url, headers: { ...ADMIN, ...TYPE_B }, payload: SLD_B })
    ])
    const codes = res.map((r) => r.statusCode).sort()
    if (codes[0] !== 201 || codes[1] !== 403) { t.fail(`round ${round}: ${codes.join(', ')} ${res.map((r) => r.body).join(' / ')}`); continue }
    const loser = res.find((r) => r.statusCode === 403)!
    t.equal(loser.body, `Style new${round} already exists.`)
    t.match(loser.headers['content-type'], /^text\/plain/)
    const winner = res[0].statusCode === 201 ? SLD_A : SLD_B
    t.equal((await app.inject({ url: `${REST}/styles/new${round}.sld`, headers: ADMIN })).body, winner, `round ${round}: the file is the winner's`)
  }
  await settled(app.config.dataDir)
  await catalogMatchesFiles(t, app, 'after 50 rounds')
})

t.test('[hostile #61] a client that closes the socket at 50% of a 50 MB mosaic upload leaves no partial file; catalog unchanged', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve))
  const { port } = app.server.address() as AddressInfo
  const gets = [`${REST}/workspaces/ws/coveragestores.json`, `${REST}/workspaces/ws/coveragestores/big.json`]
  const before = await snapshot(app, gets, ADMIN)
  const total = 50 * 1024 * 1024
  // A real archive start (so nothing is refused before the cut), then the rest of the promised length.
  const head = rawZip([{ name: 'indexer.properties', data: INDEXER }, { name: 'timeregex.properties', data: TIMEREGEX }, { name: 'elevationregex.properties', data: ELEVATIONREGEX }])
  const closed = new Promise<string>((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'PUT', path: `${REST}/workspaces/ws/coveragestores/big/file.imagemosaic`,
      headers: { ...ADMIN, 'content-type': 'application/zip', 'content-length': String(total) } })
    req.on('error', (err) => resolve((err as NodeJS.ErrnoException).code ?? 'error'))
    req.on('response', (res) => { res.resume(); resolve(`answered ${res.statusCode}`) })
    req.write(head)
    const chunk = Buffer.alloc(1024 * 1024, 0x5a)
    let sent = head.length
    const pump = () => {
      while (sent < total / 2) {
        sent += chunk.length
        if (!req.write(chunk)) { req.once('drain', pump); return }
      }
      // Half sent: the client goes away.
      req.socket?.destroy()
      resolve('closed at 50%')
    }
    pump()
  })
  t.equal(await closed, 'closed at 50%')
  // The server notices the reset on its own time: wait (bounded) until its upload file is gone.
  const uploads = path.join(app.config.dataDir, 'tmp', 'uploads')
  for (let i = 0; i < 500 && fs.existsSync(uploads) && fs.readdirSync(uploads).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  t.same(fs.existsSync(uploads) ? fs.readdirSync(uploads) : [], [], 'the partial upload is removed')
  const after = await snapshot(app, gets, ADMIN)
  t.same(after.files, before.files, 'data directory unchanged')
  t.same(after.catalog, before.catalog, 'catalog unchanged')
  t.same(leftovers(app.config.dataDir), [], 'no temp or staging file')
  const alive = await app.inject({ url: `${BASE}/health` })
  t.equal(alive.statusCode, 200, 'the server is alive')
})

/** Every tile file under the cache is a whole PNG (signature first, IEND chunk last); no temp tile. */
function tilesWhole (t: any, app: FastifyInstance, label: string) {
  const root = path.join(app.config.dataDir, 'tiles')
  let n = 0
  let torn = 0
  if (fs.existsSync(root)) {
    for (const e of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue
      n++
      const data = fs.readFileSync(path.join(e.parentPath, e.name))
      const whole = /^\d+\.png$/.test(e.name) && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) &&
        data.subarray(data.length - 8, data.length - 4).toString('latin1') === 'IEND'
      if (!whole) torn++
    }
  }
  t.equal(torn, 0, `${label}: all ${n} tile files are whole PNGs`)
  const tmp = path.join(app.config.dataDir, 'tmp', 'tiles')
  t.same(fs.existsSync(tmp) ? fs.readdirSync(tmp) : [], [], `${label}: no temp tile left`)
  return n
}

const seedBody = (o: Record<string, unknown>) => JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', threadCount: 1, ...o } })
const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
const FORM = { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }

async function taskStates (app: FastifyInstance, ids: number[]): Promise<string[]> {
  const out: string[] = []
  for (const id of ids) out.push(JSON.parse((await app.inject({ url: `${SEED}/tasks/${id}.json`, headers: ADMIN })).body).task.state)
  return out
}

/** A layer seeded to zoom 6 by `threadCount` tasks (ids 1..threadCount), with its whole tiles counted. */
async function seededWorld (t: Tap, threadCount: number) {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(64, 64, [-20, -10, 20, 30], pattern) })
  const r = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedBody({ zoomStart: 0, zoomStop: 6, threadCount }) })
  t.equal(r.statusCode, 200)
  await app.tileCache.breeder.idle()
  const seeded = tilesWhole(t, app, 'after the seed')
  t.ok(seeded > 50, `${seeded} tiles to truncate`)
  return { app, layer, seeded }
}

t.test('[hostile #62] kill_all during a truncate stops it between two tiles; the task ends ABORTED; the tiles left are whole', async (t) => {
  const { app, layer, seeded } = await seededWorld(t, 2)
  let r: Awaited<ReturnType<typeof app.inject>>

  // Killed from inside the truncate, at its fifth deleted tile, so the stop point is certain.
  let deletions = 0
  let killResponse: Promise<any> | undefined
  app.tileCache.store.onTileDeleted(() => {
    if (++deletions === 5) {
      app.tileCache.breeder.kill('all')
      killResponse = app.inject({ method: 'POST', url: SEED, headers: FORM, payload: 'kill_all=all' })
    }
  })
  r = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedBody({ zoomStart: 0, zoomStop: 6, type: 'truncate' }) })
  t.equal(r.statusCode, 200)
  await app.tileCache.breeder.idle()
  t.equal((await killResponse)?.statusCode, 200, 'kill_all answered')
  const truncateId = 3
  const task = JSON.parse((await app.inject({ url: `${SEED}/tasks/${truncateId}.json`, headers: ADMIN })).body).task
  t.match(task, { type: 'truncate', state: 'aborted', status: -1 })
  t.equal(task.tilesDone, 5, 'stopped right after the tile in hand')
  t.equal(tilesWhole(t, app, 'after the killed truncate'), seeded - 5, 'the rest of the cache is still there')

  // The same through HTTP only: truncate, then kill_all at once; whatever the interleaving, the task
  // ends done or aborted and the tiles left are whole.
  r = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedBody({ zoomStart: 0, zoomStop: 6, type: 'truncate' }) })
  t.equal(r.statusCode, 200)
  r = await app.inject({ method: 'POST', url: SEED, headers: FORM, payload: 'kill_all=all' })
  t.equal(r.statusCode, 200)
  await app.tileCache.breeder.idle()
  t.match(await taskStates(app, [4]), [/^(done|aborted)$/])
  tilesWhole(t, app, 'after the second truncate')
  t.equal((await app.inject({ url: `${SEED}.json`, headers: ADMIN })).body, '{"long-array-array":[]}', 'nothing left running')
})

t.test('[hostile #62] kill_thread of a running truncate stops it between two tiles too', async (t) => {
  const { app, layer, seeded } = await seededWorld(t, 1)
  const truncateId = 2
  let deletions = 0
  let killed: ReturnType<typeof app.tileCache.breeder.killTask>
  app.tileCache.store.onTileDeleted(() => { if (++deletions === 5) killed = app.tileCache.breeder.killTask(truncateId, layer) })
  const r = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedBody({ zoomStart: 0, zoomStop: 6, type: 'truncate' }) })
  t.equal(r.statusCode, 200)
  await app.tileCache.breeder.idle()
  t.equal((await killed)?.was, 'running')
  const task = JSON.parse((await app.inject({ url: `${SEED}/tasks/${truncateId}.json`, headers: ADMIN })).body).task
  t.match(task, { type: 'truncate', state: 'aborted', status: -1 })
  t.equal(task.tilesDone, 5, 'stopped right after the tile in hand')
  t.equal(tilesWhole(t, app, 'after the killed truncate'), seeded - 5)
})

t.test('[hostile #62] seed and truncate on the same layer at once: no crash, tasks done or aborted, only whole tiles', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(64, 64, [-20, -10, 20, 30], pattern) })
  let id = 0
  for (let round = 0; round < 5; round++) {
    const [seed, truncate, reseed] = await Promise.all([
      app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedBody({ zoomStart: 0, zoomStop: 5, threadCount: 2 }) }),
      app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedBody({ zoomStart: 0, zoomStop: 5, type: 'truncate' }) }),
      app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedBody({ zoomStart: 2, zoomStop: 4, type: 'reseed' }) })
    ])
    t.same([seed.statusCode, truncate.statusCode, reseed.statusCode], [200, 200, 200], `round ${round}: accepted`)
    if (round === 2) t.equal((await app.inject({ method: 'POST', url: SEED, headers: FORM, payload: 'kill_all=running' })).statusCode, 200)
    await app.tileCache.breeder.idle()
    const ids = [id + 1, id + 2, id + 3, id + 4]
    id += 4
    for (const state of await taskStates(app, ids)) t.match(state, /^(done|aborted)$/, `round ${round}: task ended`)
    tilesWhole(t, app, `round ${round}`)
  }
  t.equal((await app.inject({ url: `${SEED}.json`, headers: ADMIN })).body, '{"long-array-array":[]}', 'nothing left running')
  const tile = await app.inject({ url: `${BASE}/gwc/service/tms/1.0.0/${layer}@EPSG:4326@png/0/0/0.png`, headers: ADMIN })
  t.equal(tile.statusCode, 200, 'tiles still served')
  t.equal(tile.headers['content-type'], 'image/png')
})
