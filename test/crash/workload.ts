// The mixed stream of changes the crash tests drive: workspaces, styles with ZIP images, ACL rules,
// catalog mode, master password, quota PUTs, mosaic uploads and harvests, granule deletes, seeding
// and truncation. Every change tells the model what the resource will read once it is done
// (Model.expect) and, when acknowledged, that it is done (Model.ack). Each client owns its own
// names, so concurrent clients never race on one resource; client 0 also owns the shared ones.
import fs from 'node:fs'
import path from 'node:path'
import { Disconnected, http, harvestFile, mosaicZip, rng, sld, stylePackage, type Model, type Server } from './harness.js'

const UNIT_BYTES: Record<string, number> = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40, PiB: 2 ** 50 }

export const OPS = ['workspace', 'styleZip', 'styleSld', 'styleZipReplace', 'aclAdd', 'aclUpdate', 'catalogMode', 'masterpw',
  'quota', 'mosaicUpload', 'harvest', 'granuleDelete', 'storeCycle', 'seed', 'truncate'] as const
/** Not in the random mix: a seed that waits until every task has finished (tile and flush points). */
export type OpName = typeof OPS[number] | 'seedWait'
const SHARED: OpName[] = ['aclAdd', 'aclUpdate', 'catalogMode', 'masterpw', 'quota', 'mosaicUpload', 'harvest', 'granuleDelete', 'storeCycle', 'seed', 'truncate']

const WS = 'crash'
const STORE = 'm'
const LAYER = `${WS}:${STORE}`
const GRANULES = `/rest/workspaces/${WS}/coveragestores/${STORE}/coverages/${STORE}/index/granules`

const canonical = (o: Record<string, string>) => JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => a < b ? -1 : 1)))

async function ok (res: Promise<{ status: number, text: string }>, what: string, statuses = [200, 201]): Promise<void> {
  const r = await res
  if (!statuses.includes(r.status)) throw new Error(`${what}: unexpected ${r.status} ${r.text.slice(0, 300)}`)
}

export const fetchers = {
  workspace: (name: string) => async (s: Server) => (await http(s, 'GET', `/rest/workspaces/${name}.json`)).status === 200 ? 'present' : 'absent',
  style: (name: string) => async (s: Server) => {
    const r = await http(s, 'GET', `/rest/styles/${name}.sld`)
    return r.status === 200 ? r.text : 'absent'
  },
  acl: async (s: Server) => canonical((await http(s, 'GET', '/rest/security/acl/layers.json')).json()),
  catalogMode: async (s: Server) => (await http(s, 'GET', '/rest/security/acl/catalog.json')).json().mode as string,
  masterpw: async (s: Server) => (await http(s, 'GET', '/rest/security/masterpw.json')).json().oldMasterPassword as string,
  quota: async (s: Server) => {
    // In bytes: the server shows a quota in its best-fitting unit (1062 MiB reads 1.037109375 GiB).
    const c = (await http(s, 'GET', '/gwc/rest/diskquota.json')).json().tilecacheQuotaConfiguration
    return `${c.enabled}/${Math.round(Number(c.globalQuota.value) * UNIT_BYTES[c.globalQuota.units])}B`
  },
  mosaic: async (s: Server, store = STORE) => {
    const r = await http(s, 'GET', `/rest/workspaces/${WS}/coveragestores/${store}/coverages/${store}/index/granules.json`)
    if (r.status !== 200) return 'absent'
    return (r.json().features as Array<{ properties: { location: string } }>).map((f) => f.properties.location).sort().join('\n')
  }
}

export interface Workload {
  setup (s: Server): Promise<void>
  run (s: Server, op: OpName, client?: number): Promise<void>
  /** Random ops until the server goes away or `stop()` is true; returns the number acknowledged. */
  stream (s: Server, client: number, stop: () => boolean): Promise<number>
  /** Problems the workload itself saw (a task id handed out twice). */
  violations: string[]
}

export function createWorkload (m: Model, seed: number): Workload {
  const r = rng(seed)
  let n = 0
  let mosaicGen = 0
  const styleRev = new Map<string, number>()
  const knownTasks = new Set<number>()
  const violations: string[] = []
  let idsBeforeThisRun = 0

  const acked = (key: string) => m.resources.get(key)?.acked
  const change = async (key: string, next: string, send: () => Promise<void>) => {
    m.expect(key, next)
    await send()
    m.ack(key, next)
  }
  const existingStyles = (client: number) => [...m.resources.entries()]
    .filter(([k, v]) => k.startsWith(`style:c${client}s`) && v.acked !== 'absent' && v.pending.length === 0).map(([k]) => k.slice(6))

  async function listTasks (s: Server) {
    const rows = (await http(s, 'GET', '/gwc/rest/seed.json')).json()['long-array-array'] as number[][]
    for (const row of rows) {
      const id = row[3]
      if (!knownTasks.has(id)) {
        if (id <= idsBeforeThisRun) violations.push(`task id ${id} handed out again after a restart (ids up to ${idsBeforeThisRun} were used)`)
        knownTasks.add(id)
      }
      m.tasks.add(id)
      m.maxTaskId = Math.max(m.maxTaskId, id)
    }
  }

  async function run (s: Server, op: OpName, client = 0): Promise<void> {
    const i = ++n
    switch (op) {
      case 'workspace': {
        const name = `c${client}w${i}`
        m.track(`ws:${name}`, fetchers.workspace(name), 'absent')
        return change(`ws:${name}`, 'present', () => ok(http(s, 'POST', '/rest/workspaces', JSON.stringify({ workspace: { name } }), 'application/json'), op))
      }
      case 'styleZip': {
        const name = `c${client}s${i}`
        m.track(`style:${name}`, fetchers.style(name), 'absent')
        styleRev.set(name, 1)
        const pkg = await stylePackage(name, 1)
        return change(`style:${name}`, sld(name, 1), () => ok(http(s, 'POST', `/rest/styles?name=${name}`, pkg, 'application/zip'), op))
      }
      case 'styleSld':
      case 'styleZipReplace': {
        const names = existingStyles(client)
        if (names.length === 0) return run(s, 'styleZip', client)
        const name = r.pick(names)
        const rev = (styleRev.get(name) ?? 1) + 1
        styleRev.set(name, rev)
        const body = op === 'styleSld' ? sld(name, rev) : await stylePackage(name, rev)
        return change(`style:${name}`, sld(name, rev), () => ok(http(s, 'PUT', `/rest/styles/${name}`, body, op === 'styleSld' ? 'application/vnd.ogc.sld+xml' : 'application/zip'), op))
      }
      case 'aclAdd':
      case 'aclUpdate': {
        m.track('acl', fetchers.acl, await fetchers.acl(s))
        const current = JSON.parse(acked('acl')!) as Record<string, string>
        const mine = Object.keys(current).filter((k) => k.startsWith(`${WS}.l`))
        if (op === 'aclUpdate' && mine.length > 0) {
          const key = r.pick(mine)
          const roles = current[key] === 'ROLE_A' ? 'ROLE_B' : 'ROLE_A'
          return change('acl', canonical({ ...current, [key]: roles }), () => ok(http(s, 'PUT', '/rest/security/acl/layers.json', JSON.stringify({ [key]: roles }), 'application/json'), op))
        }
        const key = `${WS}.l${i}.r`
        return change('acl', canonical({ ...current, [key]: 'ROLE_A' }), () => ok(http(s, 'POST', '/rest/security/acl/layers.json', JSON.stringify({ [key]: 'ROLE_A' }), 'application/json'), op))
      }
      case 'catalogMode': {
        m.track('catalogMode', fetchers.catalogMode, await fetchers.catalogMode(s))
        const modes = ['HIDE', 'MIXED', 'CHALLENGE'].filter((x) => x !== acked('catalogMode'))
        const mode = r.pick(modes)
        return change('catalogMode', mode, () => ok(http(s, 'PUT', '/rest/security/acl/catalog.json', JSON.stringify({ mode }), 'application/json'), op))
      }
      case 'masterpw': {
        m.track('masterpw', fetchers.masterpw, await fetchers.masterpw(s))
        const old = acked('masterpw')!
        const next = `master-${seed}-${i}-pw`
        // The old password must be accepted: it is the one the keystore opens with (invariant 5).
        return change('masterpw', next, () => ok(http(s, 'PUT', '/rest/security/masterpw.json', JSON.stringify({ oldMasterPassword: old, newMasterPassword: next }), 'application/json'), op))
      }
      case 'quota': {
        m.track('quota', fetchers.quota, await fetchers.quota(s))
        const value = 100 + i
        return change('quota', `true/${value * UNIT_BYTES.MiB}B`, () => ok(http(s, 'PUT', '/gwc/rest/diskquota.json',
          JSON.stringify({ gwcQuotaConfiguration: { enabled: true, globalQuota: { value, units: 'MiB' } } }), 'application/json'), op))
      }
      case 'mosaicUpload': {
        m.track('mosaic', fetchers.mosaic, await fetchers.mosaic(s))
        const gen = ++mosaicGen + seed * 1000
        const count = 2 + (gen % 3)
        const next = Array.from({ length: count }, (_, k) => `g${gen}_${k}.tif`).sort().join('\n')
        const zip = await mosaicZip(gen, count)
        return change('mosaic', next, () => ok(http(s, 'PUT', `/rest/workspaces/${WS}/coveragestores/${STORE}/file.imagemosaic`, zip, 'application/zip'), op))
      }
      case 'harvest': {
        m.track('mosaic', fetchers.mosaic, await fetchers.mosaic(s))
        if (acked('mosaic') === 'absent') return run(s, 'mosaicUpload', client)
        const file = harvestFile(m.env, `h${seed}_${i}.tif`, i)
        const next = [...acked('mosaic')!.split('\n'), file].sort().join('\n')
        return change('mosaic', next, () => ok(http(s, 'POST', `/rest/workspaces/${WS}/coveragestores/${STORE}/external.imagemosaic`, `file://${file}`, 'text/plain'), op))
      }
      case 'granuleDelete': {
        m.track('mosaic', fetchers.mosaic, await fetchers.mosaic(s))
        const res = await http(s, 'GET', `${GRANULES}.json`)
        if (res.status !== 200) return run(s, 'mosaicUpload', client)
        const features = res.json().features as Array<{ id: string, properties: { location: string } }>
        const harvested = features.filter((f) => path.isAbsolute(f.properties.location))
        if (harvested.length === 0) return run(s, 'harvest', client)
        const victim = r.pick(harvested)
        const next = features.filter((f) => f !== victim).map((f) => f.properties.location).sort().join('\n')
        m.purges.push(victim.properties.location)
        return change('mosaic', next, async () => {
          await ok(http(s, 'DELETE', `${GRANULES}/${victim.id}?purge=all`), op)
          m.purges = m.purges.filter((p) => p !== victim.properties.location)
          if (fs.existsSync(victim.properties.location)) throw new Error(`granuleDelete: ${victim.properties.location} still on disk after purge=all was acknowledged`)
        })
      }
      case 'storeCycle': {
        // A second store, created and deleted in turn (a delete removes its rows, then its folder).
        const fetch = (s: Server) => fetchers.mosaic(s, 'd')
        m.track('mosaic:d', fetch, await fetch(s))
        if (acked('mosaic:d') === 'absent') {
          const zip = await mosaicZip(i, 2)
          return change('mosaic:d', [`g${i}_0.tif`, `g${i}_1.tif`].join('\n'), () => ok(http(s, 'PUT', `/rest/workspaces/${WS}/coveragestores/d/file.imagemosaic`, zip, 'application/zip'), op))
        }
        return change('mosaic:d', 'absent', () => ok(http(s, 'DELETE', `/rest/workspaces/${WS}/coveragestores/d?recurse=true`), op))
      }
      case 'seedWait': {
        await run(s, 'seed', client)
        for (;;) {
          const rows = (await http(s, 'GET', '/gwc/rest/seed.json')).json()['long-array-array'] as number[][]
          if (rows.length === 0) return
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      }
      case 'seed':
      case 'truncate': {
        if ((await fetchers.mosaic(s)) === 'absent') return run(s, 'mosaicUpload', client)
        const body = { seedRequest: { name: LAYER, gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: op === 'seed' ? 5 : 6, format: 'image/png', type: op, threadCount: 2 } }
        await ok(http(s, 'POST', `/gwc/rest/seed/${LAYER}.json`, JSON.stringify(body), 'application/json'), op, [200])
        await listTasks(s)
        return
      }
    }
  }

  return {
    violations,
    async setup (s: Server) {
      idsBeforeThisRun = m.maxTaskId
      if ((await fetchers.workspace(WS)(s)) === 'absent') await ok(http(s, 'POST', '/rest/workspaces', JSON.stringify({ workspace: { name: WS } }), 'application/json'), 'setup workspace')
      if ((await fetchers.mosaic(s)) === 'absent') await run(s, 'mosaicUpload')
    },
    run,
    async stream (s: Server, client: number, stop: () => boolean): Promise<number> {
      let done = 0
      const mine = client === 0 ? [...OPS] : OPS.filter((o) => !SHARED.includes(o))
      while (!stop()) {
        try { await run(s, r.pick(mine), client) } catch (err) {
          if (err instanceof Disconnected) return done
          throw err
        }
        done++
      }
      return done
    }
  }
}
