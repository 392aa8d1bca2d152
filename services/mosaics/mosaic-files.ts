// The files side of a mosaic: the definition files of an archive and the folder that holds it,
// harvest locations resolved under the harvest roots, and the files a granule purge removes.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { HarvestBadLocation, HarvestOutsideRoots, NoMosaicInArchive } from '../errors.js'
import type { DefinitionFiles } from './indexer.js'
import { worldFileSidecars } from './world-file.js'
import { WORLD_IMAGE } from '../render/raster/granule-files.js'

export type Purge = 'none' | 'metadata' | 'all'

const DEFINITION_FILE = /^(indexer\.(properties|xml)|datastore\.properties|[^/]+\.properties)$/i
const MAX_DEFINITION_BYTES = 1024 * 1024

export async function readDefinition (root: string): Promise<DefinitionFiles> {
  const files: DefinitionFiles = new Map()
  for (const e of await fs.promises.readdir(root, { withFileTypes: true })) {
    if (!e.isFile() || !DEFINITION_FILE.test(e.name)) continue
    const p = path.join(root, e.name)
    const st = await fs.promises.stat(p)
    if (st.size > MAX_DEFINITION_BYTES) throw NoMosaicInArchive(`${e.name} is larger than 1 MiB`)
    files.set(e.name.toLowerCase(), await fs.promises.readFile(p, 'utf8'))
  }
  return files
}

/** The folder of the archive that holds the mosaic: the one with the indexer, else the top. */
export async function mosaicRoot (extracted: string, names: string[]): Promise<string> {
  const indexers = names.filter((n) => /(^|\/)indexer\.(properties|xml)$/i.test(n)).sort((a, b) => a.split('/').length - b.split('/').length)
  if (indexers.length) return path.join(extracted, path.posix.dirname(indexers[0]))
  const top = await fs.promises.readdir(extracted, { withFileTypes: true })
  if (top.length === 1 && top[0].isDirectory()) return path.join(extracted, top[0].name)
  return extracted
}

export const posixRel = (from: string, to: string) => path.relative(from, to).split(path.sep).join('/')

export function isUnder (root: string, p: string): boolean {
  const rel = path.relative(root, p)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/** The harvest roots as real paths (a missing root admits nothing). */
export async function realRoots (harvestRoots: string[]): Promise<string[]> {
  const out: string[] = []
  for (const r of harvestRoots) { try { out.push(await fs.promises.realpath(r)) } catch { /* a missing root admits nothing */ } }
  return out
}

/** Resolves a harvest body (file: URL or absolute path) to a real path under a harvest root. */
export async function harvestTarget (body: string, harvestRoots: string[]): Promise<string> {
  const text = body.trim()
  if (text.includes('\u0000')) throw HarvestBadLocation('the request body', 'it holds a NUL character')
  if (text === '' || text.length > 4096 || /[\u0000-\u001f]/.test(text)) throw HarvestBadLocation('the request body', 'expected a file: URL or an absolute path')
  // Refused outright rather than normalised away (after the roots check below for '..', so a way
  // out of the roots keeps its 403): a location that needs them is not one an administrator meant.
  let decoded = text
  try { decoded = decodeURIComponent(text) } catch { /* refused below as not a valid file: URL */ }
  if (decoded.includes('\u0000')) throw HarvestBadLocation('the location', 'it holds a NUL character')
  let p: string
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)
  if (scheme && scheme[1].length > 1) {
    if (scheme[1].toLowerCase() !== 'file') throw HarvestBadLocation(JSON.stringify(text.slice(0, 100)), `${scheme[1]}: locations are not supported, only file: URLs and absolute paths`)
    let url: URL
    try { url = new URL(text) } catch { throw HarvestBadLocation(JSON.stringify(text.slice(0, 100)), 'not a valid file: URL') }
    if (url.host !== '' && url.host !== 'localhost') throw HarvestBadLocation(JSON.stringify(text.slice(0, 100)), 'file: URLs must name a local path')
    try { p = fileURLToPath(url) } catch { throw HarvestBadLocation(JSON.stringify(text.slice(0, 100)), 'not a valid file: URL') }
  } else {
    p = text
    if (!path.isAbsolute(p)) throw HarvestBadLocation(JSON.stringify(text.slice(0, 100)), 'paths must be absolute')
  }
  const roots = harvestRoots.map((r) => path.resolve(r))
  const lexical = path.resolve(p)
  // The lexical check comes first so that nothing outside the roots is even looked at.
  if (!roots.some((r) => isUnder(r, lexical))) throw HarvestOutsideRoots('the location is outside them')
  if (decoded.split(/[\\/]/).includes('..')) throw HarvestBadLocation('the location', "'..' segments are not allowed")
  let real: string
  try { real = await fs.promises.realpath(lexical) } catch { throw HarvestBadLocation('the location', 'no such file or directory under the harvest roots') }
  if (!(await realRoots(harvestRoots)).some((r) => isUnder(r, real))) throw HarvestOutsideRoots('the location leaves them through a symbolic link')
  return real
}

/** Removes the sidecars of granules (purge=metadata) or the granules too (purge=all), only inside
 *  the mosaic's folder or a harvest root. */
export async function removeFiles (paths: string[], purge: Purge, dir: string, harvestRoots: string[], log?: { warn (obj: object, msg: string): void }) {
  if (purge === 'none') return
  const roots = [await fs.promises.realpath(dir).catch(() => dir), ...(await realRoots(harvestRoots))]
  for (const g of paths) {
    const candidates = [`${g}.aux.xml`, `${g}.ovr`, g.replace(/\.[^.]+$/, '.prj'), g.replace(/\.[^.]+$/, '.tfw'),
      ...(WORLD_IMAGE.test(g) ? worldFileSidecars(g) : [])]
    if (purge === 'all') candidates.push(g)
    for (const f of candidates) {
      const real = await fs.promises.realpath(f).catch(() => undefined)
      if (!real || !roots.some((r) => isUnder(r, real))) continue
      await fs.promises.rm(real, { force: true }).catch((err) => log?.warn({ err }, 'could not purge a granule file'))
    }
  }
}
