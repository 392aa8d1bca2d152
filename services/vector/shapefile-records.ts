// One shapefile record read by its position, for the reads the spatial index (shapefile-index.ts)
// answers: the .shp record's geometry as GeoJSON and the .dbf row of the same record number, decoded
// exactly as the `shapefile` package decodes them on a full read (its parsers ported: rings by their
// winding, clockwise shells and the holes they contain; dBase values trimmed, numbers or null, dates
// at local midnight, logicals Y/T and N/F), so an indexed read and a scan give the same features.
import fs from 'node:fs'

/** The first `bytes` bytes of a file (fewer when it is shorter): the .shp, .shx and .dbf headers. */
export async function readHead (file: string, bytes: number): Promise<Buffer> {
  const fh = await fs.promises.open(file, 'r')
  try {
    const b = Buffer.alloc(bytes)
    const { bytesRead } = await fh.read(b, 0, bytes, 0)
    return b.subarray(0, bytesRead)
  } finally { await fh.close() }
}

/** A .shp record's content (from its shape type on) as GeoJSON; null for a null shape. */
export function decodeShape (rec: Buffer): any {
  const type = rec.readInt32LE(0)
  const base = type % 10
  if (type === 0) return null
  if (base === 1) return { type: 'Point', coordinates: [rec.readDoubleLE(4), rec.readDoubleLE(12)] }
  if (base === 8) {
    const n = rec.readInt32LE(36)
    const coordinates = new Array(n)
    for (let j = 0, i = 40; j < n; ++j, i += 16) coordinates[j] = [rec.readDoubleLE(i), rec.readDoubleLE(i + 8)]
    return { type: 'MultiPoint', coordinates }
  }
  if (base !== 3 && base !== 5) throw new Error(`unsupported shape type ${type}`)
  const n = rec.readInt32LE(36)
  const m = rec.readInt32LE(40)
  const parts = new Array<number>(n)
  const points = new Array<number[]>(m)
  let i = 44
  for (let j = 0; j < n; ++j, i += 4) parts[j] = rec.readInt32LE(i)
  for (let j = 0; j < m; ++j, i += 16) points[j] = [rec.readDoubleLE(i), rec.readDoubleLE(i + 8)]
  if (base === 3) {
    return n === 1 ? { type: 'LineString', coordinates: points } : { type: 'MultiLineString', coordinates: parts.map((p, j) => points.slice(p, parts[j + 1])) }
  }
  const polygons: number[][][][] = []
  const holes: number[][][] = []
  parts.forEach((p, j) => {
    const ring = points.slice(p, parts[j + 1])
    if (ringClockwise(ring)) polygons.push([ring])
    else holes.push(ring)
  })
  for (const hole of holes) {
    if (!polygons.some((poly) => { if (ringContainsSome(poly[0], hole)) { poly.push(hole); return true } return false })) polygons.push([hole])
  }
  return polygons.length === 1 ? { type: 'Polygon', coordinates: polygons[0] } : { type: 'MultiPolygon', coordinates: polygons }
}

function ringClockwise (ring: number[][]): boolean {
  const n = ring.length
  if (n < 4) return false
  let area = ring[n - 1][1] * ring[0][0] - ring[n - 1][0] * ring[0][1]
  for (let i = 1; i < n; i++) area += ring[i - 1][1] * ring[i][0] - ring[i - 1][0] * ring[i][1]
  return area >= 0
}

function ringContainsSome (ring: number[][], hole: number[][]): boolean {
  for (const p of hole) {
    const c = ringContains(ring, p)
    if (c) return c > 0
  }
  return false
}

function ringContains (ring: number[][], point: number[]): number {
  const [x, y] = point
  let contains = -1
  for (let i = 0, n = ring.length, j = n - 1; i < n; j = i++) {
    const [xi, yi] = ring[i]; const [xj, yj] = ring[j]
    if (segmentContains(ring[i], ring[j], point)) return 0
    if (((yi > y) !== (yj > y)) && (x < (xj - xi) * (y - yi) / (yj - yi) + xi)) contains = -contains
  }
  return contains
}

function segmentContains (p0: number[], p1: number[], p2: number[]): boolean {
  const x20 = p2[0] - p0[0]; const y20 = p2[1] - p0[1]
  if (x20 === 0 && y20 === 0) return true
  const x10 = p1[0] - p0[0]; const y10 = p1[1] - p0[1]
  if (x10 === 0 && y10 === 0) return false
  const t = (x20 * x10 + y20 * y10) / (x10 * x10 + y10 * y10)
  return t < 0 || t > 1 ? false : t === 0 || t === 1 ? true : t * x10 === x20 && t * y10 === y20
}

export interface DbfLayout {
  records: number
  headerLength: number
  recordLength: number
  /** Each field with its byte offset in a row (the deletion flag is byte 0). */
  fields: Array<{ name: string, type: string, length: number, decimals: number, offset: number }>
}

/** The .dbf layout from its header bytes (the whole header: 32 bytes, the field descriptors, 0x0D). */
export function dbfLayout (head: Buffer, decoder: TextDecoder): DbfLayout {
  const fields: DbfLayout['fields'] = []
  const headerLength = head.readUInt16LE(8)
  let offset = 1
  for (let at = 32; at + 32 <= head.length && head[at] !== 0x0d; at += 32) {
    let j = 0
    while (j < 11 && head[at + j] !== 0) j++
    fields.push({ name: decoder.decode(head.subarray(at, at + j)), type: String.fromCharCode(head[at + 11]), length: head[at + 16], decimals: head[at + 17], offset })
    offset += head[at + 16]
  }
  return { records: head.readUInt32LE(4), headerLength, recordLength: head.readUInt16LE(10), fields }
}

/** A .dbf file's layout with field names trimmed and types upper-cased, as the schema and an append
 *  compare them; undefined when the file is too short to be a .dbf (each caller says why it matters). */
export async function readDbfHeader (file: string, decoder: TextDecoder): Promise<DbfLayout | undefined> {
  const first = await readHead(file, 32)
  if (first.length < 32) return undefined
  const layout = dbfLayout(await readHead(file, first.readUInt16LE(8)), decoder)
  return { ...layout, fields: layout.fields.map((f) => ({ ...f, name: f.name.trim(), type: f.type.toUpperCase() })) }
}

const number = (v: string): number | null => { const s = v.trim(); const n = +s; return !s || isNaN(n) ? null : n }
const VALUES: Record<string, (v: string) => unknown> = {
  B: number,
  C: (v) => v.trim() || null,
  D: (v) => new Date(+v.substring(0, 4), +v.substring(4, 6) - 1, +v.substring(6, 8)),
  F: number,
  L: (v) => /^[nf]$/i.test(v) ? false : /^[yt]$/i.test(v) ? true : null,
  M: number,
  N: number
}

/** A .dbf row's values by field name; the end-of-file marker or a missing row: no values. */
export function decodeRow (row: Buffer | undefined, layout: DbfLayout, decoder: TextDecoder): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (!row || row.length < layout.recordLength || row[0] === 0x1a) return out
  let i = 1
  for (const f of layout.fields) {
    out[f.name] = (VALUES[f.type] ?? VALUES.C)(decoder.decode(row.subarray(i, i + f.length)))
    i += f.length
  }
  return out
}
