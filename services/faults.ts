// Fault points for the crash-safety harness (test/crash/): MAPWARDEN_FAULT_KILL_AT names points in
// the write paths where the process kills itself with SIGKILL, so a test can prove that a crash at
// exactly that moment loses nothing acknowledged and tears nothing. Test-only: unset in production, and then every point is a no-op.
// The list is separated by `,` or `|`; `name@n` fires on the n-th time the point is reached
// (default the first), counted per thread (tile writes happen in the render workers). Services
// receive the `FaultPoint` function; they never read the environment.
import { writeSync } from 'node:fs'

/** Every fault point the code has, so a typo in the setting stops the start instead of never firing. */
export const FAULT_POINTS = [
  'workspace.beforeCommit',
  'workspace.afterCommit',
  'style.afterTempWrite',
  'style.beforeRename',
  'style.afterRename',
  'style.afterImages',
  'style.afterRow',
  'mosaic.afterStage',
  'mosaic.afterAside',
  'mosaic.afterFileBeforeIndex',
  'mosaic.afterIndex',
  'mosaic.harvestBeforeIndex',
  'mosaic.deleteBeforeFiles',
  'granule.afterRowBeforeFile',
  'quota.beforeFlush',
  'quota.afterFlush',
  'quota.beforeConfigWrite',
  'quota.afterConfigWrite',
  'masterpw.afterNewKeystore',
  'masterpw.beforeCommit',
  'masterpw.afterCommit',
  'acl.beforeCommit',
  'acl.afterCommit',
  'catalogMode.beforeCommit',
  'catalogMode.afterCommit',
  'seed.taskRecordWrite',
  'seed.afterTaskRecord',
  'tile.beforeRename',
  'tile.afterRename'
] as const
export type FaultName = typeof FAULT_POINTS[number]

/** Called at a point in a write path; kills the process there when the setting names it. */
export type FaultPoint = (name: FaultName) => void

export const noFaults: FaultPoint = () => {}

/** What a fault point does in the server and its render workers: SIGKILL of the whole process. */
export function killProcessAt (name: FaultName): void {
  // Straight to fd 2: a worker thread's process.stderr goes through the main thread, too late.
  writeSync(2, `mapwarden: fault point ${name}: SIGKILL\n`)
  process.kill(process.pid, 'SIGKILL')
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0) // never returns: the signal is on its way
}

export interface FaultRule { name: FaultName, nth: number }

/** Parses the setting; throws with a message naming the bad entry. */
export function parseFaultList (raw: string): FaultRule[] {
  const out: FaultRule[] = []
  for (const part of raw.split(/[,|]/).map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z]+\.[A-Za-z]+)(?:@([1-9]\d{0,6}))?$/.exec(part)
    if (!m || !(FAULT_POINTS as readonly string[]).includes(m[1])) {
      throw new Error(`unknown fault point "${part}"; known: ${FAULT_POINTS.join(', ')} (optionally name@n)`)
    }
    out.push({ name: m[1] as FaultName, nth: m[2] ? Number(m[2]) : 1 })
  }
  return out
}

/**
 * The fault function for a parsed list. `kill` is what happens at a matching point (the server
 * passes a SIGKILL of its own process); without rules the function does nothing at all.
 */
export function createFaults (rules: FaultRule[] | undefined, kill: (name: FaultName) => void): FaultPoint {
  if (!rules || rules.length === 0) return noFaults
  const seen = new Map<string, number>()
  return (name) => {
    const n = (seen.get(name) ?? 0) + 1
    seen.set(name, n)
    if (rules.some((r) => r.name === name && r.nth === n)) kill(name)
  }
}
