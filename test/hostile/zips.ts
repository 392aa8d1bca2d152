// A tiny ZIP writer for hostile archives (hostile cases 21-31). yazl, like
// every careful writer, refuses the names and attributes these tests need, so this one writes the
// bytes itself: local header, data, central directory, end record (APPNOTE 4.3), nothing more.
// Each entry may lie: any name (backslashes, '..', NUL, 5 KB), Unix mode bits in the external
// attributes (symlinks, devices), and a declared uncompressed size different from the real one.
import zlib from 'node:zlib'

export interface RawEntry {
  name: string | Buffer
  data?: Buffer | string
  /** Unix mode (st_mode) stored in the external attributes, with "made by" Unix. */
  mode?: number
  /** Deflate the data (default true when it is larger than 64 bytes). */
  deflate?: boolean
  /** Uncompressed size written in both headers; the real size when unset. */
  declaredSize?: number
  /** Bytes written as the deflated data, whatever they are (a corrupt stream). */
  compressed?: Buffer
  /** CRC-32 written in both headers; the real one when unset. */
  crc?: number
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

export function crc32 (buf: Buffer): number {
  let c = 0xffffffff
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

export function rawZip (entries: RawEntry[]): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const e of entries) {
    const name = Buffer.isBuffer(e.name) ? e.name : Buffer.from(e.name, 'utf8')
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data ?? '')
    const deflate = e.compressed !== undefined || (e.deflate ?? data.length > 64)
    const body = e.compressed ?? (deflate ? zlib.deflateRawSync(data, { level: 9 }) : data)
    const size = e.declaredSize ?? data.length
    const crc = e.crc ?? crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4) // version needed
    local.writeUInt16LE(0x0800, 6) // UTF-8 names
    local.writeUInt16LE(deflate ? 8 : 0, 8)
    local.writeUInt32LE(0, 10) // time, date
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(size, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(0, 28)
    locals.push(local, name, body)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(e.mode !== undefined ? (3 << 8) | 20 : 20, 4) // made by (Unix when a mode is given)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(0x0800, 8)
    central.writeUInt16LE(deflate ? 8 : 0, 10)
    central.writeUInt32LE(0, 12)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(size, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt16LE(0, 30) // extra
    central.writeUInt16LE(0, 32) // comment
    central.writeUInt16LE(0, 34) // disk
    central.writeUInt16LE(0, 36) // internal attributes
    central.writeUInt32LE(e.mode !== undefined ? (e.mode << 16) >>> 0 : 0, 38)
    central.writeUInt32LE(offset, 42)
    centrals.push(central, name)
    offset += local.length + name.length + body.length
  }
  const cd = Buffer.concat(centrals)
  if (entries.length > 0xffff) return Buffer.concat([...locals, cd, zip64End(entries.length, cd.length, offset)])
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(cd.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, cd, end])
}

/** More than 65 535 entries need the ZIP64 end records (APPNOTE 4.3.14, 4.3.15). */
function zip64End (count: number, cdSize: number, cdOffset: number): Buffer {
  const rec = Buffer.alloc(56)
  rec.writeUInt32LE(0x06064b50, 0)
  rec.writeBigUInt64LE(44n, 4)
  rec.writeUInt16LE(45, 12)
  rec.writeUInt16LE(45, 14)
  rec.writeBigUInt64LE(BigInt(count), 24)
  rec.writeBigUInt64LE(BigInt(count), 32)
  rec.writeBigUInt64LE(BigInt(cdSize), 40)
  rec.writeBigUInt64LE(BigInt(cdOffset), 48)
  const loc = Buffer.alloc(20)
  loc.writeUInt32LE(0x07064b50, 0)
  loc.writeBigUInt64LE(BigInt(cdOffset + cdSize), 8)
  loc.writeUInt32LE(1, 16)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(0xffff, 8)
  end.writeUInt16LE(0xffff, 10)
  end.writeUInt32LE(0xffffffff, 12)
  end.writeUInt32LE(0xffffffff, 16)
  return Buffer.concat([rec, loc, end])
}

/** A classic bomb: one entry of `size` zero bytes, deflated to about a thousandth of that. */
export function bomb (name: string, size: number, extra: RawEntry[] = []): Buffer {
  return rawZip([...extra, { name, data: Buffer.alloc(size), deflate: true }])
}

export const S_IFLNK = 0o120000
export const S_IFCHR = 0o020000
export const S_IFBLK = 0o060000
export const S_IFIFO = 0o010000
