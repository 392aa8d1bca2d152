// `update=append` of a file.shp upload onto an existing Shapefile store, written into a staged copy of
// the store's folder (file-uploads.ts swaps it in): each uploaded shapefile's records go after the
// records of the store's shapefile of the same type name. GeoServer's DataStoreFileController appends
// the uploaded features to the store's type of the same name. The two must match: the same shape type,
// the same CRS when both have a .prj, every uploaded .dbf field a field of the store's with a compatible
// type (C; N or F; D; L; others the same) whose values fit its length and decimals; a store field the
// upload lacks is left blank (null). Otherwise 400 naming the shapefile and field, and the staged copy
// is discarded. The .shp records are numbered on from the store's, the .shx offsets follow, the
// .shp/.shx file lengths and bounding boxes and the .dbf record count are rewritten; .dbf text is
// re-encoded in the store's charset (its .cpg, else the store's `charset`) when the upload's differs.
// An uploaded type the store lacks is added to a directory store (GeoServer creates it); a store that
// reads one .shp refuses it (400 naming it).
import fs from 'node:fs'
import path from 'node:path'
import { InvalidDataStore } from '../errors.js'
import { shapefileParts } from '../datastores/files.js'
import { sridOfPrj } from './prj.js'
import { readDbfHeader, readHead, type DbfLayout } from './shapefile-records.js'

const shown = (s: string) => JSON.stringify(s)
const refuse = (msg: string) => InvalidDataStore(`update=append: ${msg}`)
const SHAPE_NAMES: Record<number, string> = { 0: 'Null', 1: 'Point', 3: 'PolyLine', 5: 'Polygon', 8: 'MultiPoint', 11: 'PointZ', 13: 'PolyLineZ', 15: 'PolygonZ', 18: 'MultiPointZ', 21: 'PointM', 23: 'PolyLineM', 25: 'PolygonM', 28: 'MultiPointM', 31: 'MultiPatch' }
const shapeName = (t: number) => SHAPE_NAMES[t] ?? `shape type ${t}`

type Dbf = DbfLayout

async function readDbf (file: string, decoder: TextDecoder): Promise<Dbf> {
  const dbf = await readDbfHeader(file, decoder)
  if (!dbf) throw refuse(`${shown(path.basename(file))} is not a .dbf file`)
  return dbf
}

const charsetLabel = async (cpg: string | undefined, fallback: string): Promise<string> => {
  if (cpg) {
    const label = (await fs.promises.readFile(cpg, 'latin1')).trim()
    try { return new TextDecoder(label).encoding } catch { /* a .cpg naming no known charset */ }
  }
  try { return new TextDecoder(fallback).encoding } catch { throw refuse(`charset ${shown(fallback)} is not one this server knows`) }
}

/** Text in the store's charset: UTF-8 or the Latin-1 family (WHATWG names ISO-8859-1 windows-1252). */
function encoderFor (charset: string, from: string): (s: string, where: string) => Buffer {
  if (charset === 'utf-8') return (s) => Buffer.from(s, 'utf8')
  if (charset === 'windows-1252') {
    return (s, where) => {
      if (/[^\u0000-\u00ff]/.test(s)) throw refuse(`${where} holds a character the store's charset ${charset} cannot hold`)
      return Buffer.from(s, 'latin1')
    }
  }
  return () => { throw refuse(`the upload's .dbf text is in ${from} and the store's in ${charset}: upload it in ${charset} (a .cpg or charset=${charset})`) }
}

const compatible = (a: string, b: string) => a === b || ('NF'.includes(a) && 'NF'.includes(b))

/** What the store's copy of one record field is made from the uploaded row. */
type FieldWriter = (row: Buffer, out: Buffer, record: number) => void

function fieldWriters (store: Dbf, up: Dbf, type: string, sameCharset: boolean, decode: TextDecoder, encode: (s: string, where: string) => Buffer): FieldWriter[] {
  const byName = new Map(store.fields.map((f) => [f.name.toLowerCase(), f]))
  const writers: FieldWriter[] = []
  for (const u of up.fields) {
    const s = byName.get(u.name.toLowerCase())
    const where = `field ${shown(u.name)} of shapefile ${shown(type)}`
    if (!s) throw refuse(`${where} is not a field of the store's .dbf (${store.fields.map((f) => f.name).join(', ') || 'none'})`)
    if (!compatible(s.type, u.type)) throw refuse(`${where} is of type ${s.type} in the store and ${u.type} in the upload`)
    const numeric = 'NF'.includes(s.type)
    if (!numeric && u.length > s.length) throw refuse(`${where} is ${s.length} long in the store and ${u.length} in the upload`)
    if (numeric && (u.decimals > s.decimals || u.length - u.decimals > s.length - s.decimals)) {
      throw refuse(`${where} is ${s.type}(${s.length},${s.decimals}) in the store and ${u.type}(${u.length},${u.decimals}) in the upload: its values would not fit`)
    }
    if (!'CNFDL'.includes(s.type) && (s.length !== u.length || s.type !== u.type)) throw refuse(`${where} is ${s.type}(${s.length}) in the store and ${u.type}(${u.length}) in the upload`)
    const fit = (b: Buffer, record: number) => {
      if (b.length > s.length) throw refuse(`${where}, record ${record}: the value is ${b.length} bytes in the store's charset, longer than the field (${s.length})`)
      return b
    }
    if (s.type === 'C' && sameCharset) {
      writers.push((row, out) => { row.copy(out, s.offset, u.offset, u.offset + u.length) })
    } else if (s.type === 'C') {
      writers.push((row, out, record) => { fit(encode(decode.decode(row.subarray(u.offset, u.offset + u.length)).trimEnd(), `${where}, record ${record},`), record).copy(out, s.offset) })
    } else if (numeric) {
      writers.push((row, out, record) => {
        let v = row.toString('latin1', u.offset, u.offset + u.length).trim()
        if (v !== '' && u.decimals !== s.decimals && Number.isFinite(Number(v))) v = Number(v).toFixed(s.decimals)
        const b = fit(Buffer.from(v, 'latin1'), record)
        b.copy(out, s.offset + s.length - b.length)
      })
    } else {
      writers.push((row, out) => { row.copy(out, s.offset, u.offset, u.offset + u.length) })
    }
  }
  return writers
}

/** A reader of a file in order, a chunk at a time. */
function sequential (fh: fs.promises.FileHandle, start: number) {
  let buf = Buffer.alloc(0)
  let at = 0
  let pos = start
  return async (n: number): Promise<Buffer | undefined> => {
    while (buf.length - at < n) {
      const chunk = Buffer.alloc(Math.max(1 << 20, n))
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, pos)
      if (bytesRead === 0) return undefined
      pos += bytesRead
      buf = Buffer.concat([buf.subarray(at), chunk.subarray(0, bytesRead)])
      at = 0
    }
    const out = buf.subarray(at, at + n)
    at += n
    return out
  }
}

/** Buffered appends at a position of a file handle. */
function appender (fh: fs.promises.FileHandle, start: number) {
  let parts: Buffer[] = []
  let size = 0
  let pos = start
  const flush = async () => {
    if (size === 0) return
    const b = Buffer.concat(parts)
    parts = []; size = 0
    await fh.write(b, 0, b.length, pos)
    pos += b.length
  }
  return {
    async write (b: Buffer) { parts.push(Buffer.from(b)); size += b.length; if (size >= 1 << 20) await flush() },
    async end () { await flush(); return pos }
  }
}

const combineRanges = (a: Buffer, b: Buffer, out: Buffer) => {
  // Xmin Ymin Xmax Ymax, then Zmin Zmax, Mmin Mmax (bytes 36..100, little-endian doubles).
  for (const [lo, hi] of [[36, 52], [44, 60], [68, 76], [84, 92]]) {
    out.writeDoubleLE(Math.min(a.readDoubleLE(lo), b.readDoubleLE(lo)), lo)
    out.writeDoubleLE(Math.max(a.readDoubleLE(hi), b.readDoubleLE(hi)), hi)
  }
}

interface AppendOne { type: string, storeShp: string, upShp: string, storeCharset: string, upCharset?: string }

async function appendOne ({ type, storeShp, upShp, storeCharset, upCharset }: AppendOne): Promise<number> {
  const sp = await shapefileParts(storeShp)
  const up = await shapefileParts(upShp)
  if (!sp.shx || !sp.dbf) throw refuse(`the store's shapefile ${shown(type)} has no ${sp.shx ? '.dbf' : '.shx'}`)
  const sHead = await readHead(storeShp, 100)
  const uHead = await readHead(upShp, 100)
  const sType = sHead.readInt32LE(32); const uType = uHead.readInt32LE(32)
  if (sType !== uType) throw refuse(`shapefile ${shown(type)} holds ${shapeName(sType)} shapes in the store and ${shapeName(uType)} in the upload`)
  if (sp.prj && up.prj) {
    const [a, b] = [await fs.promises.readFile(sp.prj, 'utf8'), await fs.promises.readFile(up.prj, 'utf8')]
    const [sa, sb] = [await sridOfPrj(a, path.basename(sp.prj)), await sridOfPrj(b, path.basename(up.prj))]
    if (sa !== sb || (sa === 0 && a.trim() !== b.trim())) throw refuse(`the .prj of shapefile ${shown(type)} names ${sa ? `EPSG:${sa}` : 'another CRS'} in the store and ${sb ? `EPSG:${sb}` : 'another CRS'} in the upload`)
  }
  const sCs = await charsetLabel(sp.cpg, storeCharset)
  const uCs = await charsetLabel(up.cpg, upCharset ?? sCs)
  const sDec = new TextDecoder(sCs); const uDec = new TextDecoder(uCs)
  const sDbf = await readDbf(sp.dbf, sDec)
  const uDbf = await readDbf(up.dbf!, uDec)
  const sSize = (await fs.promises.stat(storeShp)).size
  const shxSize = (await fs.promises.stat(sp.shx)).size
  const have = (shxSize - 100) / 8
  if (sHead.readInt32BE(24) * 2 !== sSize || !Number.isInteger(have) || have !== sDbf.records) {
    throw refuse(`the store's shapefile ${shown(type)} is not whole (its .shp length, .shx and .dbf record counts disagree): replace it with update=overwrite`)
  }
  const writers = fieldWriters(sDbf, uDbf, type, sCs === uCs, uDec, encoderFor(sCs, uCs))

  // .shp and .shx: the uploaded records, numbered on, appended.
  const shpFh = await fs.promises.open(storeShp, 'r+')
  const shxFh = await fs.promises.open(sp.shx, 'r+')
  const upFh = await fs.promises.open(upShp, 'r')
  let added = 0
  let shpEnd: number; let shxEnd: number
  try {
    const uSize = (await upFh.stat()).size
    const next = sequential(upFh, 100)
    const shp = appender(shpFh, sSize)
    const shx = appender(shxFh, shxSize)
    let pos = sSize
    let upPos = 100
    while (upPos < uSize) {
      const rh = await next(8)
      const len = rh ? rh.readInt32BE(4) * 2 : -1
      const content = rh && len >= 4 && upPos + 8 + len <= uSize ? await next(len) : undefined
      if (!rh || !content || rh.readInt32BE(0) !== added + 1) throw refuse(`the uploaded ${shown(path.basename(upShp))} is not whole at record ${added + 1}`)
      const rt = content.readInt32LE(0)
      if (rt !== 0 && rt !== uType) throw refuse(`record ${added + 1} of the uploaded ${shown(path.basename(upShp))} is a ${shapeName(rt)}, not a ${shapeName(uType)}`)
      const h = Buffer.alloc(8)
      h.writeInt32BE(have + added + 1, 0); h.writeInt32BE(len / 2, 4)
      await shp.write(h); await shp.write(content)
      const ix = Buffer.alloc(8)
      ix.writeInt32BE(pos / 2, 0); ix.writeInt32BE(len / 2, 4)
      await shx.write(ix)
      pos += 8 + len; upPos += 8 + len; added++
    }
    if (added !== uDbf.records) throw refuse(`the uploaded shapefile ${shown(type)} has ${added} shapes and ${uDbf.records} .dbf rows`)
    if (pos > 0x7fffffff * 2) throw refuse(`shapefile ${shown(type)} would pass a shapefile's 4 GB limit`)
    shpEnd = await shp.end(); shxEnd = await shx.end()
    const header = Buffer.from(sHead)
    if (added > 0) {
      if (have === 0) uHead.copy(header, 36, 36, 100)
      else combineRanges(sHead, uHead, header)
    }
    header.writeInt32BE(shpEnd / 2, 24)
    await shpFh.write(header, 0, 100, 0)
    header.writeInt32BE(shxEnd / 2, 24)
    await shxFh.write(header, 0, 100, 0)
    await shpFh.truncate(shpEnd); await shxFh.truncate(shxEnd)
    await shpFh.sync(); await shxFh.sync()
  } finally { await shpFh.close(); await shxFh.close(); await upFh.close() }

  // .dbf: the rows in the store's layout, after the store's rows, then the end-of-file marker.
  const dbfFh = await fs.promises.open(sp.dbf, 'r+')
  const upDbf = await fs.promises.open(up.dbf!, 'r')
  try {
    const rows = sequential(upDbf, uDbf.headerLength)
    const out = appender(dbfFh, sDbf.headerLength + sDbf.records * sDbf.recordLength)
    for (let r = 1; r <= uDbf.records; r++) {
      const row = await rows(uDbf.recordLength)
      if (!row) throw refuse(`the uploaded .dbf of shapefile ${shown(type)} ends before its record ${r}`)
      const o = Buffer.alloc(sDbf.recordLength, 0x20)
      o[0] = row[0] === 0x2a ? 0x2a : 0x20
      for (const w of writers) w(row, o, r)
      await out.write(o)
    }
    await out.write(Buffer.from([0x1a]))
    const end = await out.end()
    await dbfFh.truncate(end)
    const head = Buffer.alloc(8)
    const now = new Date()
    head[0] = (await readHead(sp.dbf, 1))[0]
    head[1] = now.getUTCFullYear() - 1900; head[2] = now.getUTCMonth() + 1; head[3] = now.getUTCDate()
    head.writeUInt32LE(sDbf.records + uDbf.records, 4)
    await dbfFh.write(head, 0, 8, 0)
    await dbfFh.sync()
  } finally { await dbfFh.close(); await upDbf.close() }
  return added
}

export interface ShapefileAppend {
  /** The staged copy of the store's folder, written into. */
  storeFolder: string
  /** The folder of the extracted upload, and its .shp names. */
  uploadFolder: string
  uploadShps: string[]
  storeName: string
  /** The type a single-file store reads; undefined for a directory store. */
  singleType?: string
  /** The store's `charset` (or the default), for .dbf files with no .cpg. */
  storeCharset: string
  /** The upload's `charset` query parameter. */
  uploadCharset?: string
}

/** Appends each uploaded shapefile to the store's of the same type name; returns each type with its new records, and the types added. */
export async function appendShapefiles (a: ShapefileAppend): Promise<{ appended: Array<{ type: string, added: number }>, created: string[] }> {
  const storeShps = (await fs.promises.readdir(a.storeFolder)).filter((n) => /\.shp$/i.test(n))
  const appended: Array<{ type: string, added: number }> = []
  const created: string[] = []
  for (const name of a.uploadShps) {
    const type = name.replace(/\.shp$/i, '')
    const mine = storeShps.find((n) => n.slice(0, -4) === type)
    const upShp = path.join(a.uploadFolder, name)
    if (mine === undefined) {
      if (a.singleType !== undefined) throw refuse(`shapefile ${shown(type)} of the upload is not the type of shapefile store ${shown(a.storeName)} (${shown(a.singleType)}); append adds features to that type`)
      if (storeShps.some((n) => n.slice(0, -4).toLowerCase() === type.toLowerCase())) throw refuse(`shapefile ${shown(type)} differs only in letter case from a shapefile of store ${shown(a.storeName)}`)
      // A type the directory store lacks: its files join the folder, as GeoServer creates the type.
      for (const file of [upShp, ...Object.values(await shapefileParts(upShp))]) await fs.promises.copyFile(file, path.join(a.storeFolder, path.basename(file)))
      created.push(type)
      continue
    }
    if (a.singleType !== undefined && a.singleType !== type) throw refuse(`shapefile ${shown(type)} of the upload is not the type of shapefile store ${shown(a.storeName)} (${shown(a.singleType)})`)
    appended.push({ type, added: await appendOne({ type, storeShp: path.join(a.storeFolder, mine), upShp, storeCharset: a.storeCharset, ...(a.uploadCharset !== undefined ? { uploadCharset: a.uploadCharset } : {}) }) })
  }
  return { appended, created }
}
