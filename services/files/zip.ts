// ZIP archives from clients (styles, app-schema mappings, image mosaics). Every entry is checked
// before a single byte is written: names that leave the target (absolute, drive letters, '..',
// backslashes), links and device entries, encrypted entries, control characters, duplicates and
// case collisions, too many entries, too large a declared size. While extracting, the inflated
// bytes of each entry are held to what its header declared, so a lying header cannot expand past
// the total cap.
import { foldName } from './names.js'
import fs from 'node:fs'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Transform } from 'node:stream'
import zlib from 'node:zlib'
import yauzl, { type Entry, type ZipFile } from 'yauzl'
import { isMapwardenError, NotAZip, TooManyZipEntries, UnsafeZipEntry, ZipTooLarge } from '../errors.js'
import { within } from './atomic.js'

export interface ZipLimits { maxEntries: number, maxBytes: number }
export interface ZipEntryInfo { name: string, size: number, directory: boolean }

const S_IFMT = 0o170000
const S_IFREG = 0o100000
const S_IFDIR = 0o040000

// zlib.crc32 exists from Node 20.15; on an older 20.x the CRC check is skipped.
const crc32 = (zlib as unknown as { crc32?: (data: Buffer, value?: number) => number }).crc32

function openZip (file: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: false }, (err, zip) => {
      if (err || !zip) reject(mapOpenError(err))
      else resolve(zip)
    })
  })
}

function mapOpenError (err: Error | null | undefined) {
  const msg = err?.message ?? 'unreadable'
  const unsafe = /(invalid relative path|absolute path|invalid characters in fileName): (.*)$/.exec(msg)
  if (unsafe) return UnsafeZipEntry(JSON.stringify(unsafe[2]), unsafe[1])
  return NotAZip(msg.replace(/\s+/g, ' '))
}

function checkEntryName (name: string): string | undefined {
  if (name.length === 0) return 'empty name'
  if (name.length > 1024) return 'name longer than 1024 characters'
  if (name.includes('\uFFFD')) return 'name is not valid UTF-8'
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'control character in name'
  if (name.includes('\\')) return 'backslash in name'
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'absolute path'
  const parts = name.replace(/\/$/, '').split('/')
  if (parts.some((p) => p === '..' || p === '.' || p === '')) return 'relative path segment'
  if (parts.some((p) => p.length > 255)) return 'path segment longer than 255 characters'
  return undefined
}

function checkEntry (entry: Entry): string | undefined {
  const bad = checkEntryName(entry.fileName)
  if (bad) return bad
  if ((entry.generalPurposeBitFlag & 0x1) !== 0) return 'encrypted entry'
  const madeBy = entry.versionMadeBy >> 8
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT
  if (madeBy === 3 && mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR) return 'link or special file'
  return undefined
}

/**
 * The name in an entry's local file header, which extractors that read the archive front to back
 * (streaming unzip, some virus scanners) use instead of the central directory's: two tools would
 * see two different files (an archive smuggling trick). Undefined when the header is not there.
 */
async function localName (fh: fs.promises.FileHandle, entry: Entry): Promise<Buffer | undefined> {
  const head = Buffer.alloc(30)
  const { bytesRead } = await fh.read(head, 0, 30, entry.relativeOffsetOfLocalHeader)
  if (bytesRead < 30 || head.readUInt32LE(0) !== 0x04034b50) return undefined
  const length = head.readUInt16LE(26)
  const name = Buffer.alloc(length)
  const got = await fh.read(name, 0, length, entry.relativeOffsetOfLocalHeader + 30)
  return got.bytesRead === length ? name : undefined
}

/** Reads and validates the central directory (and each entry's local header); nothing is extracted. */
export async function listZip (file: string, limits: ZipLimits): Promise<ZipEntryInfo[]> {
  const zip = await openZip(file)
  const fh = await fs.promises.open(file, 'r')
  try {
    if (zip.entryCount > limits.maxEntries) throw TooManyZipEntries(limits.maxEntries)
    const entries: ZipEntryInfo[] = []
    const seen = new Set<string>()
    let total = 0
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: Entry) => {
        const bad = checkEntry(entry)
        if (bad) return reject(UnsafeZipEntry(JSON.stringify(entry.fileName.slice(0, 200)), bad))
        const directory = entry.fileName.endsWith('/')
        const key = foldName(entry.fileName.replace(/\/$/, ''))
        if (seen.has(key)) return reject(UnsafeZipEntry(JSON.stringify(entry.fileName.slice(0, 200)), 'duplicate or case-colliding name'))
        seen.add(key)
        total += entry.uncompressedSize
        if (total > limits.maxBytes) return reject(ZipTooLarge(limits.maxBytes))
        entries.push({ name: entry.fileName.replace(/\/$/, ''), size: entry.uncompressedSize, directory })
        localName(fh, entry).then((local) => {
          if (!local) return reject(NotAZip(`entry ${JSON.stringify(entry.fileName.slice(0, 200))} has no local header where the central directory says`))
          if (!local.equals(entry.fileNameRaw)) {
            return reject(UnsafeZipEntry(JSON.stringify(entry.fileName.slice(0, 200)), `its local header names another file (${JSON.stringify(local.toString('utf8').slice(0, 200))})`))
          }
          zip.readEntry()
        }, reject)
      })
      zip.on('end', () => resolve())
      zip.on('error', (err) => reject(mapOpenError(err)))
      zip.readEntry()
    })
    // A file whose name is also used as a directory prefix ('a' and 'a/b') cannot be extracted.
    const dirs = new Set<string>()
    for (const e of entries) {
      const parts = foldName(e.name).split('/')
      for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'))
    }
    for (const e of entries) if (!e.directory && dirs.has(foldName(e.name))) throw UnsafeZipEntry(JSON.stringify(e.name), 'file and directory share a name')
    return entries
  } finally {
    zip.close()
    await fh.close()
  }
}

/**
 * What went wrong with one entry. More bytes than declared is the bomb case (413); a failure of
 * the file system writing it (ENOSPC...) stays what it is; anything else that breaks reading or
 * inflating the entry (too few bytes, corrupt deflate data of any kind, a stream cut short) is a
 * damaged archive (400), whatever words zlib or yauzl chose for it.
 */
function entryError (e: any, name: string, limits: ZipLimits): unknown {
  if (isMapwardenError(e)) return e
  if (/too many bytes/i.test(String(e?.message))) return ZipTooLarge(limits.maxBytes)
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e
  return NotAZip(`entry ${JSON.stringify(name.slice(0, 200))} is damaged or shorter than its header declares`)
}

/**
 * Validates the whole archive, then extracts the accepted files into `destDir` (which the caller
 * owns, typically a staging folder under the data directory). Returns the extracted entries.
 */
export async function extractZip (file: string, destDir: string, limits: ZipLimits,
  accept: (entry: ZipEntryInfo) => boolean = () => true): Promise<ZipEntryInfo[]> {
  const listed = await listZip(file, limits)
  const wanted = new Set(listed.filter((e) => !e.directory && accept(e)).map((e) => e.name))
  const zip = await openZip(file)
  const extracted: ZipEntryInfo[] = []
  let total = 0
  try {
    await fs.promises.mkdir(destDir, { recursive: true })
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: Entry) => {
        const name = entry.fileName
        if (name.endsWith('/') || !wanted.has(name)) { zip.readEntry(); return }
        let target: string
        try { target = within(destDir, name) } catch { return reject(UnsafeZipEntry(JSON.stringify(name.slice(0, 200)), 'path leaves the target')) }
        // The folder first, then the entry's stream, piped at once: yauzl starts inflating as soon
        // as the stream exists, and an error it raises (a header that lies about the size) before
        // anyone listens would be an uncaught exception, i.e. a crash.
        fs.promises.mkdir(path.dirname(target), { recursive: true }).then(() => zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(mapOpenError(err))
          stream.on('error', () => {}) // reported through the pipeline; yauzl may emit once more after it
          let written = 0
          let crc = 0
          const cap = new Transform({
            transform (chunk: Buffer, _enc, cb) {
              written += chunk.length
              total += chunk.length
              if (written > entry.uncompressedSize || total > limits.maxBytes) return cb(ZipTooLarge(limits.maxBytes))
              if (crc32) crc = crc32(chunk, crc)
              cb(null, chunk)
            },
            // A damaged entry is refused as Java's ZipInputStream refuses it ("invalid entry CRC").
            flush (cb) {
              if (crc32 && crc !== entry.crc32) cb(NotAZip(`entry ${JSON.stringify(name.slice(0, 200))} fails its CRC check`))
              else cb()
            }
          })
          const out = fs.createWriteStream(target, { flags: 'wx' })
          pipeline(stream, cap, out)
            .then(() => { extracted.push({ name, size: written, directory: false }); zip.readEntry() })
            .catch(async (e) => {
              // pipeline rejects once the streams are told to stop, not once they have: wait for
              // the file to be closed, so it cannot appear after the caller removed its folder.
              if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()))
              reject(entryError(e, name, limits))
            })
        }), reject)
      })
      zip.on('end', () => resolve())
      zip.on('error', (err) => reject(mapOpenError(err)))
      zip.readEntry()
    })
    return extracted
  } finally {
    zip.close()
  }
}
