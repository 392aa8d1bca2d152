// Rebuilds tile and byte counts from the files of the blob store (<root>/<ws>/<layer>/<gridset>/
// <format>/<parameters>/<z>/<x>/<y>.<ext>), when the usage store is new or was lost. Every blob
// store's directory is walked; a layer is counted in the one that holds its tiles now (`rootOf`). Runs in the
// background while tiles keep being written: each x directory is listed and measured synchronously
// (no event can interleave). A write or delete made meanwhile counts unless its directory was
// measured after it (then the scan saw its result); directories created after the scan passed
// are never measured, so their events count.
import fs from 'node:fs'
import path from 'node:path'
import { formatOfExtension, FORMATS, tileRowOfFileName } from '../tilecache/formats.js'
import type { PageDelta, QuotaStore } from './quota-store.js'
import type { Queued, UsageRecorder } from './usage-recorder.js'
import { tileSetId } from './tile-page.js'
import { GLOBAL_GROUPS } from '../tilecache/blob-store.js'

export interface RebuildProgress {
  state: 'idle' | 'running' | 'done' | 'failed'
  filesScanned: number
  bytesScanned: number
  startedAt?: string
  finishedAt?: string
}

const PARAM_ID = /^(default|[0-9a-f]{40})$/
const NUMERIC = /^\d+$/
const dirKey = (e: { layer: string, gridSet: string, format: string, parameterId: string, z: number, x: number }) =>
  `${e.layer}/${e.gridSet}/${e.format}/${e.parameterId}/${e.z}/${e.x}`

async function list (dir: string): Promise<string[]> {
  try { return (await fs.promises.readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort() } catch { return [] }
}

export interface RebuildDeps {
  /** The directories of the blob stores (blob-store.ts roots). */
  roots: string[]
  /** The directory of a layer's tiles now. */
  rootOf: (layer: string) => string
  store: QuotaStore
  recorder: UsageRecorder
  now: () => number
  progress: RebuildProgress
  signal?: AbortSignal
}

export async function rebuildUsage ({ roots, rootOf, store, recorder, now, progress, signal }: RebuildDeps): Promise<void> {
  const scanned = new Map<string, number>() // x directory -> last event number when measured
  const pages = new Map<string, PageDelta>()
  Object.assign(progress, { state: 'running', filesScanned: 0, bytesScanned: 0, startedAt: new Date(now()).toISOString(), finishedAt: undefined })
  await recorder.flush()
  recorder.hold()
  let keep: ((q: Queued) => boolean) | undefined
  try {
    for (const root of new Set(roots)) for (const ws of await list(root)) {
      if (ws.startsWith('.')) continue // a store's temp folder
      for (const ld of await list(path.join(root, ws))) {
        const layer = `${ws}:${ld}`
        // Tiles a store no longer serves for the layer (left by a change on another node) are not counted.
        if (path.resolve(rootOf(ws === GLOBAL_GROUPS ? ld : layer)) !== path.resolve(root)) continue
        for (const g of await list(path.join(root, ws, ld))) {
          const gridSet = g.replace('_', ':')
          for (const ext of await list(path.join(root, ws, ld, g))) {
            const format = formatOfExtension(ext)
            if (!format || FORMATS[format].ext !== ext) continue
            for (const parameterId of (await list(path.join(root, ws, ld, g, ext))).filter((p) => PARAM_ID.test(p))) {
              const base = path.join(root, ws, ld, g, ext, parameterId)
              for (const zs of (await list(base)).filter((n) => NUMERIC.test(n))) {
                for (const xs of (await list(path.join(base, zs))).filter((n) => NUMERIC.test(n))) {
                  if (signal?.aborted) throw new Error('rebuild aborted')
                  const z = Number(zs)
                  const x = Number(xs)
                  const xdir = path.join(base, zs, xs)
                  const found: Queued[] = []
                  // Synchronous from here to `scanned.add`: no tile event can come in between.
                  let names: string[] = []
                  try { names = fs.readdirSync(xdir) } catch { /* removed meanwhile */ }
                  for (const name of names) {
                    const y = tileRowOfFileName(name, format)
                    if (y === undefined) continue
                    let st: fs.Stats
                    try { st = fs.statSync(path.join(xdir, name)) } catch { continue }
                    if (!st.isFile()) continue
                    // Whole milliseconds: access times are BIGINT columns (PostgreSQL refuses a fraction).
                    found.push({ kind: 0, e: { layer, gridSet, format, parameterId, z, x, y, bytes: st.size }, t: Math.floor(st.mtimeMs) })
                    progress.filesScanned++
                    progress.bytesScanned += st.size
                  }
                  scanned.set(dirKey({ layer, gridSet, format, parameterId, z, x }), recorder.seq())
                  for (const d of await recorder.fold(found)) {
                    const key = `${tileSetId(d.tileSet)}@${d.z}/${d.px}/${d.py}`
                    const acc = pages.get(key)
                    if (!acc) pages.set(key, d)
                    else { acc.tiles += d.tiles; acc.bytes += d.bytes; acc.accessMs = Math.max(acc.accessMs, d.accessMs); acc.firstMs = Math.min(acc.firstMs, d.firstMs) }
                  }
                }
              }
            }
          }
        }
      }
    }
    await store.replaceCounts([...pages.values()], now())
    keep = (q) => { const at = scanned.get(dirKey(q.e)); return at === undefined || at < (q.seq ?? 0) }
    await store.setState('usageBuiltAt', new Date(now()).toISOString())
    Object.assign(progress, { state: 'done', finishedAt: new Date(now()).toISOString() })
  } catch (err) {
    Object.assign(progress, { state: 'failed', finishedAt: new Date(now()).toISOString() })
    throw err
  } finally {
    recorder.release(keep)
  }
  await recorder.flush()
}
