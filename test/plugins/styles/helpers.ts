// Shared by the styles and layers plugin tests: fixtures, ZIP packages, data-dir manifests and
// catalog rows for layers (written by the catalog row writers, as mosaics and app-schema would).
import fs from 'node:fs'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import yazl from 'yazl'
import sharp from 'sharp'
import { addLayer as addCatalogLayer, withAppDb } from '../../fixtures/catalog-rows.js'
import type { FastifyInstance } from 'fastify'
import { ADMIN, BASE } from '../../helper.js'

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'test', 'fixtures', 'styles')
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8')
export const SLD = { 'content-type': 'application/vnd.ogc.sld+xml' }

export function zip (entries: Array<[string, string | Buffer]>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const z = new yazl.ZipFile()
    for (const [name, data] of entries) z.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name)
    const chunks: Buffer[] = []
    z.outputStream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject)
    z.end()
  })
}

/** yazl refuses unsafe names, so a hostile name replaces a same-length placeholder in the bytes. */
export function renameEntry (archive: Buffer, placeholder: string, hostile: string): Buffer {
  if (placeholder.length !== hostile.length) throw new Error('same length needed')
  const out = Buffer.from(archive)
  const from = Buffer.from(placeholder)
  let i = out.indexOf(from)
  while (i !== -1) { Buffer.from(hostile).copy(out, i); i = out.indexOf(from, i + 1) }
  return out
}

export function png (): Promise<Buffer> {
  return sharp({ create: { width: 4, height: 4, channels: 4, background: { r: 200, g: 10, b: 10, alpha: 1 } } }).png().toBuffer()
}

/** Relative path -> sha256 of every file under dir (uploads in flight and the database excluded). */
export function manifest (dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(dir, p)
      if (rel.startsWith('catalog.db') || rel === path.join('tmp', 'uploads')) continue
      if (e.isDirectory()) { out[rel + '/'] = 'dir'; walk(p) } else out[rel] = createHash('sha256').update(fs.readFileSync(p)).digest('hex')
    }
  }
  walk(dir)
  return out
}

export async function addWorkspace (app: FastifyInstance, name: string): Promise<void> {
  const res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { workspace: { name } } })
  if (res.statusCode !== 201) throw new Error(res.body)
}

/** A published raster layer as the mosaics area creates it (a vector one as app-schema does),
 *  in a store of its own, on the app's database on either backend. */
export async function addLayer (app: FastifyInstance, ws: string, name: string, type: 'RASTER' | 'VECTOR' = 'RASTER', defaultStyle: string | null = null): Promise<void> {
  await withAppDb(app, async (o) => await addCatalogLayer(o, ws, `${name}_store`, name, defaultStyle ?? undefined, [],
    { title: null, srs: 'EPSG:4326', bbox: JSON.stringify([0, 0, 1, 1]) },
    { type, storeType: type === 'RASTER' ? 'ImageMosaic' : 'app-schema' }))
}
