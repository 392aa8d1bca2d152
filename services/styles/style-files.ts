// The file side of a style: where each revision's SLD goes, which names a style file may take, and
// the moves and copies of a package's images. Nothing here touches the catalog rows.
import fs from 'node:fs/promises'
import path from 'node:path'
import { writeFileAtomic, within } from '../files/atomic.js'
import { checkName, MAX_FILE_NAME_BYTES } from '../files/names.js'
import { InvalidStyleEntry } from '../errors.js'
import type { StyleImage } from './store.js'

/** The file that holds revision `rev` of a style: the client's filename first, then name~rev.sld. */
export function fileForRevision (filename: string, rev: number): string {
  if (rev <= 1) return filename
  const ext = path.extname(filename)
  return `${filename.slice(0, filename.length - ext.length)}~${rev}${ext}`
}

export function checkFilename (value: unknown): string {
  const filename = checkName(value, 'style file', MAX_FILE_NAME_BYTES)
  if (!/\.sld$/i.test(filename)) throw InvalidStyleEntry(`filename ${JSON.stringify(filename)} must end with .sld`)
  return filename
}

export async function exists (p: string): Promise<boolean> {
  try { await fs.lstat(p); return true } catch { return false }
}

export async function sameBytes (a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([fs.stat(a), fs.stat(b)])
  return sa.size === sb.size && (await fs.readFile(a)).equals(await fs.readFile(b))
}

/** The sub-folder of a style's files ('' for the style folder itself). */
export const folderOf = (file: string | undefined) => file === undefined || !file.includes('/') ? '' : file.slice(0, file.lastIndexOf('/'))
export const inFolder = (folder: string, name: string) => folder === '' ? name : `${folder}/${name}`

/** Moves staged images into place; a file already holding the same bytes is left as it is. */
export async function moveImages (stage: string, dir: string, placed: StyleImage[]): Promise<void> {
  for (const img of placed) {
    const from = path.join(stage, img.name)
    const to = within(dir, img.file)
    if (await exists(to) && await sameBytes(to, from)) continue
    await fs.mkdir(path.dirname(to), { recursive: true })
    const fh = await fs.open(from, 'r')
    try { await fh.sync() } finally { await fh.close() }
    await fs.rename(from, to)
  }
}

/** Copies files of a style to another folder (a move between workspaces, a switch to a sub-folder). */
export async function copyFiles (from: string, to: string, files: Array<[string, string]>): Promise<void> {
  for (const [src, dst] of files) {
    if (await exists(within(from, src))) await writeFileAtomic(within(to, dst), await fs.readFile(within(from, src)))
  }
}
