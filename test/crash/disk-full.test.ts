// Disk full (issue 9): the data directory on a small tmpfs, filled to the last block. Uploads meet
// ENOSPC and get 507 with a message, a seed task ends ABORTED with the reason, the quota PUT is
// 507 or stored whole, nothing torn is left; once space is back, the task record that could not
// be written is written (it survives a restart with its reason, not as "aborted: restart").
// Mounting needs root (or a user namespace); without it the test says why and skips.
import t from 'tap'

// Several server starts and kills: more than the suite's 180 s on a loaded 2-core machine.
t.setTimeout(600_000)
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { checkFiles, http, kill, Model, sld, start, stylePackage, mosaicZip, type Server } from './harness.js'
import { createWorkload, fetchers } from './workload.js'

const FULL = 'Not enough space on the data directory to complete the request'

function mountTmpfs (dir: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir], { stdio: 'pipe' })
    return undefined
  } catch (err) {
    return `cannot mount a tmpfs here (${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()})`
  }
}

/** Writes until the file system refuses (ENOSPC); returns the filler's path. */
function fill (dir: string): string {
  const file = path.join(dir, 'filler')
  const fd = fs.openSync(file, 'w')
  const chunk = Buffer.alloc(64 * 1024, 1)
  try {
    for (let size = chunk.length; size >= 512; size = Math.floor(size / 2)) {
      for (;;) {
        try { fs.writeSync(fd, chunk, 0, size) } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break
          throw err
        }
      }
    }
  } finally { fs.closeSync(fd) }
  return file
}

async function waitTask (s: Server, id: number): Promise<any> {
  for (;;) {
    const task = (await http(s, 'GET', `/gwc/rest/seed/tasks/${id}.json`)).json().task
    if (task.state !== 'running' && task.state !== 'pending') return task
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mw-full-')))
const mnt = path.join(root, 'mnt')
fs.mkdirSync(mnt)
const why = mountTmpfs(mnt)
if (why) t.comment(`disk-full test skipped: ${why}`)
t.teardown(() => {
  if (!why) { try { execFileSync('umount', ['-l', mnt]) } catch { /* already gone */ } }
  fs.rmSync(root, { recursive: true, force: true })
})

t.test('a full data directory: 507 with a message, tasks ABORTED with the reason, nothing torn', { skip: why ? `needs a small tmpfs: ${why}` : false }, async (t) => {
  const env = { dataDir: path.join(mnt, 'data'), harvestRoot: path.join(root, 'harvest') }
  fs.mkdirSync(env.harvestRoot)
  const m = new Model(env)
  const w = createWorkload(m, 7)
  let s = await start(env)
  t.teardown(() => { s.child.kill('SIGKILL') })
  await w.setup(s)
  const mosaicBefore = await fetchers.mosaic(s)
  let res = await http(s, 'POST', '/rest/styles?name=keep', sld('keep', 1), 'application/vnd.ogc.sld+xml')
  t.equal(res.status, 201, 'a style to replace later')
  const stylesDir = path.join(env.dataDir, 'styles')
  const styleFiles = fs.readdirSync(stylesDir).sort()
  const quotaBefore = await fetchers.quota(s)

  // A long seed task is running when the disk fills up.
  res = await http(s, 'POST', '/gwc/rest/seed/crash:m.json', JSON.stringify({ seedRequest: { name: 'crash:m', gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 9, format: 'image/png', type: 'seed', threadCount: 1 } }), 'application/json')
  t.equal(res.status, 200, 'a seed task started')
  const running = ((await http(s, 'GET', '/gwc/rest/seed.json')).json()['long-array-array'] as number[][]).map((r) => r[3])
  t.equal(running.length, 1, 'one task')

  const filler = fill(mnt)
  t.ok(fs.statSync(filler).size > 0, 'the file system is full')

  // Uploads: a style package and a mosaic larger than what is left.
  const ran = await waitTask(s, running[0])
  t.equal(ran.state, 'aborted', 'the running task ended ABORTED')
  t.equal(ran.error, `aborted: ${FULL}`, 'with the reason')

  res = await http(s, 'POST', '/rest/styles?name=full', await stylePackage('full', 1), 'application/zip')
  t.equal(res.status, 507, 'style upload: 507')
  t.equal(res.text, FULL, 'style upload: the message says the disk is full')
  t.equal(await fetchers.style('full')(s), 'absent', 'no style was created')
  // A new revision of a style (a body in memory: the write of its file meets ENOSPC).
  res = await http(s, 'PUT', '/rest/styles/keep', sld('keep', 2).repeat(1).replace('</StyledLayerDescriptor>', `<!-- ${'x'.repeat(256 * 1024)} --></StyledLayerDescriptor>`), 'application/vnd.ogc.sld+xml')
  t.equal(res.status, 507, 'style revision: 507')
  t.equal(res.text, FULL, 'style revision: the message says the disk is full')
  t.equal(await fetchers.style('keep')(s), sld('keep', 1), 'the style reads as before')
  t.same(fs.readdirSync(stylesDir).sort(), styleFiles, 'no partial or orphan file is left in the style folder, even before a restart')
  res = await http(s, 'PUT', '/rest/workspaces/crash/coveragestores/m/file.imagemosaic', await mosaicZip(99, 4), 'application/zip')
  t.equal(res.status, 507, 'mosaic upload: 507')
  t.equal(res.text, FULL, 'mosaic upload: the message says the disk is full')
  t.equal(await fetchers.mosaic(s), mosaicBefore, 'the mosaic is the one before the upload')

  // Quota PUT: SQLite may still have room in its WAL; either it is refused whole or stored whole.
  res = await http(s, 'PUT', '/gwc/rest/diskquota.json', JSON.stringify({ gwcQuotaConfiguration: { enabled: true, globalQuota: { value: 321, units: 'MiB' } } }), 'application/json')
  t.ok([200, 507].includes(res.status), `quota PUT: ${res.status}`)
  if (res.status === 507) {
    t.equal(res.text, FULL)
    t.equal(await fetchers.quota(s), quotaBefore, 'quota PUT refused: the old configuration stays')
  } else t.equal(await fetchers.quota(s), 'true/321MiB', 'quota PUT stored whole')

  // Seeding: the request is refused (507) when its task record cannot be written, or the task
  // runs, meets ENOSPC writing tiles and ends ABORTED with the reason.
  res = await http(s, 'POST', '/gwc/rest/seed/crash:m.json', JSON.stringify({ seedRequest: { name: 'crash:m', gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 6, format: 'image/png', type: 'seed', threadCount: 1 } }), 'application/json')
  t.ok([200, 507].includes(res.status), `seed request: ${res.status}`)
  let taskId: number | undefined
  if (res.status === 507) t.equal(res.text, FULL)
  else {
    for (let id = running[0] + 1; ; id++) {
      const r = await http(s, 'GET', `/gwc/rest/seed/tasks/${id}.json`)
      if (r.status !== 200) break
      taskId = id
    }
    t.ok(taskId, 'the task exists')
    const task = await waitTask(s, taskId!)
    t.equal(task.state, 'aborted', 'the task ended ABORTED')
    t.equal(task.error, `aborted: ${FULL}`, 'with the reason')
  }

  // Space comes back: a task record that could not be written is written now (a graceful stop
  // tries one last time), and after a restart the task still shows its own reason.
  fs.rmSync(filler)
  s.child.kill('SIGTERM')
  await s.exited
  t.comment(s.output().includes('could not write a seed task record')
    ? 'a task record write met the full disk and was retried once space was back'
    : 'every task record write found room (SQLite reused its WAL)')
  s = await start(env)
  for (const id of [running[0], ...(taskId === undefined ? [] : [taskId])]) {
    const task = (await http(s, 'GET', `/gwc/rest/seed/tasks/${id}.json`)).json().task
    t.equal(task.state, 'aborted')
    t.equal(task.error, `aborted: ${FULL}`, 'the record kept the disk-full reason across the restart')
  }
  t.same(checkFiles(env.dataDir), [], 'catalog and files agree; no temp or staging file is left')
  t.equal(await fetchers.style('full')(s), 'absent')
  t.equal(await fetchers.mosaic(s), mosaicBefore)
  // And it works again.
  res = await http(s, 'POST', '/rest/styles?name=full', await stylePackage('full', 1), 'application/zip')
  t.equal(res.status, 201, 'with space back the same upload succeeds')
  await kill(s)
})
