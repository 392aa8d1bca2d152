// What every refused request must show:
// the status, a text/plain message naming the problem with no internals, a data directory whose
// manifest is unchanged, catalog GETs that answer the same, and no temp or staging file left.
import fs from 'node:fs'
import path from 'node:path'
import { createHash } from 'node:crypto'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { Test } from 'tap'
import { manifest } from '../manifest.js'
import { leaksNothing, tempFiles as leftovers } from './refuse.js'

export { leftovers }

export type Tap = Test

/** Paths that are expected to change on their own (uploads in flight are removed after the response). */
function stable (dir: string): string[] {
  return manifest(dir).filter((line) => !line.startsWith(path.join('tmp', 'uploads') + path.sep))
}

/** Waits (bounded, no timing asserted) for the upload temp files that onResponse removes. */
export async function settled (dir: string): Promise<void> {
  for (let i = 0; i < 200 && leftovers(dir).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
}

export interface Snapshot { files: string[], catalog: string[] }

/** Data directory manifest plus the bodies of the given catalog GETs. */
export async function snapshot (app: FastifyInstance, gets: string[] = [], headers: Record<string, string> = {}): Promise<Snapshot> {
  await settled(app.config.dataDir)
  const catalog: string[] = []
  for (const url of gets) {
    const r = await app.inject({ method: 'GET', url, headers })
    catalog.push(`${r.statusCode} ${r.body}`)
  }
  return { files: stable(app.config.dataDir), catalog }
}

/** `echo`: the client's own input, which the message may quote (it is not an internal path). */
export interface Refusal { status: number, message: string | RegExp, echo?: string }

/**
 * Checks one refused response: status, text/plain, the message, no internals; then that the data
 * directory and the catalog answers equal `before` and that no temp file is left.
 */
export async function assertRefused (t: Tap, app: FastifyInstance, res: LightMyRequestResponse, want: Refusal, before: Snapshot,
  label: string, gets: string[] = [], headers: Record<string, string> = {}): Promise<void> {
  t.equal(res.statusCode, want.status, `${label}: status`)
  t.match(String(res.headers['content-type']), /^text\/plain/, `${label}: text/plain`)
  if (typeof want.message === 'string') t.equal(res.body, want.message, `${label}: message`)
  else t.match(res.body, want.message, `${label}: message`)
  leaksNothing(t, want.echo ? res.body.split(want.echo).join('') : res.body, label, app.config.dataDir)
  const after = await snapshot(app, gets, headers)
  t.same(after.files, before.files, `${label}: data directory unchanged`)
  t.same(after.catalog, before.catalog, `${label}: catalog answers unchanged`)
  t.same(leftovers(app.config.dataDir), [], `${label}: no temp file left`)
}

/** A manifest of any folder that records symbolic links instead of following them. */
export function treeManifest (dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(dir, p)
      if (e.isSymbolicLink()) out.push(`${rel} -> ${fs.readlinkSync(p)}`)
      else if (e.isDirectory()) { out.push(rel + '/'); walk(p) } else {
        const data = fs.readFileSync(p)
        out.push(`${rel}\t${data.length}\t${createHash('sha256').update(data).digest('hex')}`)
      }
    }
  }
  walk(dir)
  return out.sort()
}
