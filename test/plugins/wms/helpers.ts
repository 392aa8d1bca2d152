// Shared by the WMS tests: real mosaics made through the REST API, KVP URLs, decoded pixels and
// parsed documents.
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import sharp from 'sharp'
import { ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { ELEVATIONREGEX, INDEXER, TIMEREGEX, makeTiff, makeZip } from '../../fixtures/mosaics/make.js'
import { parseXml } from '../../../services/files/xml.js'

export const arr = <T>(v: T | T[] | undefined): T[] => v === undefined ? [] : Array.isArray(v) ? v : [v]

export function wmsUrl (params: Record<string, string | number>, path = '/wms'): string {
  return `${BASE}${path}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()}`
}

/** topp:world, an 80x80 RGB pattern over lon -20..20, lat -10..30. */
export async function worldMosaic (app: FastifyInstance, ws = 'topp', name = 'world'): Promise<string> {
  return createMosaic(app, ws, name, { 'world.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
}

/**
 * ws:temp, a grey mosaic with time and elevation in its file names: the granule of 2024-01-01 at
 * elevation 0 holds 10, at elevation 100 holds 20, the one of 2024-02-01 at elevation 0 holds 30.
 */
export async function timeMosaic (app: FastifyInstance, ws = 'ws'): Promise<string> {
  if (!(await app.workspaces.exists(ws))) await app.workspaces.create({ name: ws })
  const tiff = (v: number) => makeTiff({ width: 16, height: 16, bbox: [0, 0, 10, 10], value: () => v })
  const res = await app.inject({
    method: 'PUT',
    url: `${BASE}/rest/workspaces/${ws}/coveragestores/temp/file.imagemosaic`,
    headers: { ...ADMIN, 'content-type': 'application/zip' },
    payload: await makeZip({
      'indexer.properties': INDEXER,
      'timeregex.properties': TIMEREGEX,
      'elevationregex.properties': ELEVATIONREGEX,
      'temp_20240101T000000_0.tif': tiff(10),
      'temp_20240101T000000_100.tif': tiff(20),
      'temp_20240201T000000_0.tif': tiff(30)
    })
  })
  if (res.statusCode !== 200) throw new Error(`time mosaic: ${res.statusCode} ${res.body}`)
  return `${ws}:temp`
}

export interface Pixels { width: number, height: number, channels: number, data: Buffer }

export async function pixels (image: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return { width: info.width, height: info.height, channels: info.channels, data }
}

export function at (p: Pixels, x: number, y: number): number[] {
  const i = (y * p.width + x) * p.channels
  return [...p.data.subarray(i, i + p.channels)]
}

/** A WMS document parsed (the 1.1.1 DOCTYPE removed first: our parser refuses DTDs on principle). */
export async function parseDoc (body: string): Promise<any> {
  return parseXml(body.replace(/<!DOCTYPE[^>]*>/, ''))
}

export { pattern }

/**
 * xmllint's verdict on a document (--nonet: no DTD or schema is fetched): well-formed alone, or
 * valid `against` ['--schema', xsd] or ['--dtdvalid', dtd] (the DOCTYPE, which names the DTD by URL,
 * is dropped then); `valid` false expects a refusal (a negative control).
 */
export function xmllint (t: Test, body: string, label: string, against: string[] = [], valid = true) {
  if (spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).status !== 0) return t.fail('xmllint is missing: run scripts/install-wms-tools.sh')
  if (against.length && !fs.existsSync(against[1])) return t.fail(`${against[1]} is missing: run scripts/install-wms-tools.sh`)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-wms-xml-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'doc.xml')
  fs.writeFileSync(file, against[0] === '--dtdvalid' ? body.replace(/<!DOCTYPE[^>]*>/, '') : body)
  const r = spawnSync('xmllint', ['--noout', '--nonet', ...against, file], { encoding: 'utf8' })
  if (!valid) return t.not(r.status, 0, `${label}: refused by the schema`)
  t.equal(r.status, 0, `${label}: ${r.status === 0 ? 'valid' : r.stderr.split('\n').slice(0, 5).join(' | ')}`)
}
