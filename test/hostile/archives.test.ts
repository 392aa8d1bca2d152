// Hostile archives (hostile cases 21-31): every archive is generated here
// by test/hostile/zips.ts and sent to each of the three ZIP uploads (style package, app-schema
// store, image mosaic). A refusal leaves the data directory, the catalog and the temp folders
// exactly as they were.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import os from 'node:os'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE } from '../helper.js'
import { makeTiff, makeZip, INDEXER, TIMEREGEX, ELEVATIONREGEX } from '../fixtures/mosaics/make.js'
import { fixture, png, SLD } from '../plugins/styles/helpers.js'
import { fixtureItems } from '../plugins/appschema/helpers.js'
import { extractZip } from '../../services/files/zip.js'
import { rawZip, bomb, S_IFLNK, S_IFCHR, S_IFBLK, S_IFIFO, type RawEntry } from './zips.js'
import { assertRefused, snapshot, type Refusal } from './assert-b.js'
import { tempDir } from '../helper.js'

const REST = `${BASE}/rest`
const ZIP = { 'content-type': 'application/zip' }
const CAP = 8 * 1024 * 1024
const GRANULE = makeTiff({ width: 8, height: 8, bbox: [0, 40, 10, 50], value: (_x, y) => y })
const GETS = [`${REST}/styles.json`, `${REST}/styles/existing.sld`, `${REST}/workspaces/ws/coveragestores.json`,
  `${REST}/workspaces/ws/coveragestores/temp/coverages/temp/index/granules.json`, `${REST}/workspaces/ws/datastores.json`]

type Target = 'style' | 'appschema' | 'mosaic'
const TARGETS: Target[] = ['style', 'appschema', 'mosaic']

function send (app: FastifyInstance, target: Target, body: Buffer) {
  const url = target === 'style' ? `${REST}/styles`
    : target === 'appschema' ? `${REST}/workspaces/ws/datastores/fresh/file.appschema`
      : `${REST}/workspaces/ws/coveragestores/fresh/file.imagemosaic`
  return app.inject({ method: target === 'style' ? 'POST' : 'PUT', url, headers: { ...ADMIN, ...ZIP }, payload: body })
}

/** A plausible package for each target, to which the hostile entries are added. */
function baseEntries (target: Target): RawEntry[] {
  if (target === 'style') return [{ name: 'fresh.sld', data: fixture('rain.sld').replace('<Name>rain</Name>', '<Name>fresh</Name>') }]
  if (target === 'appschema') return fixtureItems('property').map((i) => ({ name: i.name, data: i.data }))
  return [{ name: 'indexer.properties', data: INDEXER }, { name: 'timeregex.properties', data: TIMEREGEX },
    { name: 'elevationregex.properties', data: ELEVATIONREGEX }, { name: 'temp_20081101T000000_0.tif', data: GRANULE }]
}

async function setup (t: any): Promise<FastifyInstance> {
  const app = await build(t, { zipMaxBytes: CAP })
  let r = await app.inject({ method: 'POST', url: `${REST}/workspaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { workspace: { name: 'ws' } } })
  t.equal(r.statusCode, 201)
  r = await app.inject({ method: 'POST', url: `${REST}/styles?name=existing`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  t.equal(r.statusCode, 201)
  r = await app.inject({ method: 'PUT', url: `${REST}/workspaces/ws/coveragestores/temp/file.imagemosaic`, headers: { ...ADMIN, ...ZIP },
    payload: await makeZip({ 'indexer.properties': INDEXER, 'timeregex.properties': TIMEREGEX, 'elevationregex.properties': ELEVATIONREGEX, 'temp_20081101T000000_0.tif': GRANULE }) })
  t.equal(r.statusCode, 200)
  return app
}

async function refuseEverywhere (t: any, app: FastifyInstance, label: string, entries: RawEntry[], want: Refusal, targets = TARGETS) {
  for (const target of targets) {
    const before = await snapshot(app, GETS, ADMIN)
    const res = await send(app, target, rawZip([...baseEntries(target), ...entries]))
    await assertRefused(t, app, res, want, before, `${label} (${target})`, GETS, ADMIN)
  }
}

const UNSAFE = /^Unsafe ZIP entry "[^"]*": [a-z ,-]+$/

t.test('[hostile #21] a zip bomb is 413 before anything is written', async (t) => {
  const app = await setup(t)
  const size = 42 * 1024 * 1024
  for (const target of TARGETS) {
    const archive = bomb('zeros.bin', size, baseEntries(target))
    t.ok(archive.length < 120 * 1024, `small on the wire (${archive.length} bytes for ${size})`)
    const before = await snapshot(app, GETS, ADMIN)
    await assertRefused(t, app, await send(app, target, archive), { status: 413, message: `ZIP archive expands past the limit of ${CAP} bytes` }, before, `bomb (${target})`, GETS, ADMIN)
  }
  // Many small entries that only together pass the cap: refused on the declared total.
  await refuseEverywhere(t, app, 'bomb spread over entries', Array.from({ length: 10 }, (_, i) => ({ name: `z${i}.bin`, data: Buffer.alloc(CAP / 8) })),
    { status: 413, message: `ZIP archive expands past the limit of ${CAP} bytes` })
})

t.test('[hostile #21] [hostile #27] extraction writes no more than the cap even when headers lie', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'liar.zip')
  fs.writeFileSync(file, rawZip([{ name: 'a.bin', data: Buffer.alloc(16 * 1024 * 1024), declaredSize: 1024 }]))
  const out = path.join(dir, 'out')
  let written = -1
  await t.rejects(extractZip(file, out, { maxEntries: 10, maxBytes: 1024 * 1024 }, () => true).finally(() => {
    written = fs.existsSync(path.join(out, 'a.bin')) ? fs.statSync(path.join(out, 'a.bin')).size : 0
  }), { code: 'MW_ZIP_TOO_LARGE' })
  t.ok(written >= 0 && written <= 1024, `bytes written (${written}) stay within what the header declared`)
})

t.test('[hostile #22] 100 000 empty entries are 400', async (t) => {
  const app = await setup(t)
  const many = Array.from({ length: 100_000 }, (_, i) => ({ name: `e${i}`, data: '' }))
  await refuseEverywhere(t, app, '100 000 entries', many, { status: 400, message: 'ZIP archive has more than 10000 entries' })
})

t.test('[hostile #23] traversal names are refused and nothing is written anywhere', async (t) => {
  const app = await setup(t)
  const tag = randomBytes(6).toString('hex')
  const names = [`../../../../tmp/evil-${tag}.txt`, `a/../../x-${tag}`, `ok/../../../evil-${tag}`, `./../evil-${tag}`]
  for (const name of names) {
    // The message quotes the entry name, the client's own input (echo): not an internal path.
    await refuseEverywhere(t, app, name, [{ name: 'zfirst.txt', data: 'written first?' }, { name, data: 'owned' }], { status: 400, message: UNSAFE, echo: name })
  }
  t.notOk(fs.existsSync(path.join(os.tmpdir(), `evil-${tag}.txt`)), 'nothing in /tmp')
  t.notOk(fs.existsSync(path.join(path.dirname(app.config.dataDir), `evil-${tag}`)), 'nothing beside the data directory')
})

t.test('[hostile #24] absolute, drive, backslash and UNC names are refused', async (t) => {
  const app = await setup(t)
  for (const name of ['/etc/cron.d/x', 'C:\\x', 'C:/x', '..\\..\\x', '\\\\host\\share\\x', 'a\\..\\..\\x']) {
    await refuseEverywhere(t, app, JSON.stringify(name), [{ name, data: 'owned' }], { status: 400, message: UNSAFE })
  }
})

t.test('[hostile #25] symlink, device and fifo entries are refused', async (t) => {
  const app = await setup(t)
  await refuseEverywhere(t, app, 'symlink then a file through it', [{ name: 'lnk', data: '/etc', mode: S_IFLNK | 0o777 }, { name: 'lnk/passwd', data: 'x' }],
    { status: 400, message: UNSAFE })
  await refuseEverywhere(t, app, 'symlink to a file', [{ name: 'gear.png', data: '/etc/passwd', mode: S_IFLNK | 0o777 }], { status: 400, message: 'Unsafe ZIP entry "gear.png": link or special file' })
  for (const [what, mode] of [['character device', S_IFCHR], ['block device', S_IFBLK], ['fifo', S_IFIFO]] as const) {
    await refuseEverywhere(t, app, what, [{ name: 'dev.tif', data: '', mode: mode | 0o644 }], { status: 400, message: 'Unsafe ZIP entry "dev.tif": link or special file' })
  }
  // ZIP has no hard-link entry type: a "hard link" made by zip is just a second regular file.
})

t.test('[hostile #26] duplicate, case-colliding, control-character and 5 KB names are refused', async (t) => {
  const app = await setup(t)
  await refuseEverywhere(t, app, 'duplicate', [{ name: 'dup.txt', data: 'a' }, { name: 'dup.txt', data: 'b' }], { status: 400, message: 'Unsafe ZIP entry "dup.txt": duplicate or case-colliding name' })
  await refuseEverywhere(t, app, 'case collision', [{ name: 'A.png', data: 'a' }, { name: 'a.png', data: 'b' }], { status: 400, message: 'Unsafe ZIP entry "a.png": duplicate or case-colliding name' })
  await refuseEverywhere(t, app, 'NUL', [{ name: 'a\u0000b.txt', data: 'a' }], { status: 400, message: UNSAFE })
  await refuseEverywhere(t, app, 'control character', [{ name: 'a\u0007b.txt', data: 'a' }], { status: 400, message: UNSAFE })
  await refuseEverywhere(t, app, 'DEL', [{ name: 'a\u007fb.txt', data: 'a' }], { status: 400, message: UNSAFE })
  await refuseEverywhere(t, app, '5 KB name', [{ name: 'n'.repeat(5 * 1024), data: 'a' }], { status: 400, message: /^Unsafe ZIP entry "n{200}": name longer than 1024 characters$/ })
  await refuseEverywhere(t, app, 'file and directory of one name', [{ name: 'd', data: 'a' }, { name: 'd/x.txt', data: 'b' }], { status: 400, message: 'Unsafe ZIP entry "d": file and directory share a name' })
  await refuseEverywhere(t, app, 'invalid UTF-8 name', [{ name: Buffer.from([0x61, 0xc0, 0xae, 0xc0, 0xae, 0x2e, 0x70, 0x6e, 0x67]), data: 'a' }], { status: 400, message: /^Unsafe ZIP entry "a\uFFFD+\.png": name is not valid UTF-8$/u })
})

t.test('[hostile #27] a local header that lies about its size is cut off on the inflated stream: 413', async (t) => {
  const app = await setup(t)
  // Declares 1 KB, inflates 64 MB (deflated to about 64 KB on the wire).
  await refuseEverywhere(t, app, 'declares 1 KB, inflates 64 MB', [{ name: 'liar.png', data: Buffer.alloc(64 * 1024 * 1024), declaredSize: 1024 }],
    { status: 413, message: `ZIP archive expands past the limit of ${CAP} bytes` })
  // Declares more than it holds: the entry ends early, so the archive is refused as damaged.
  await refuseEverywhere(t, app, 'declares 1 MB, holds 10 bytes', [{ name: 'short.png', data: '0123456789', deflate: true, declaredSize: 1024 * 1024 }],
    { status: 400, message: 'Not a ZIP archive: entry "short.png" is damaged or shorter than its header declares' })
  // Deflated bytes that are not a deflate stream.
  await refuseEverywhere(t, app, 'corrupt deflate data', [{ name: 'bad.png', data: 'x'.repeat(100), compressed: Buffer.alloc(64, 0xff) }],
    { status: 400, message: 'Not a ZIP archive: entry "bad.png" is damaged or shorter than its header declares' })
  // Corrupt deflate data in zlib's other words ("too many length or distance symbols"): damaged too.
  await refuseEverywhere(t, app, 'corrupt deflate data, other zlib error', [{ name: 'bad2.png', data: 'x'.repeat(100),
    compressed: Buffer.from('1c1fff324c9077b4d11cffcc08c2c19fa5961f6cc35b0f0a689ab43b6b55a6134eafe73b582db06e49dc4b720a091dc15f01260a2d2ccfc229222d1d9f99f71b', 'hex') }],
  { status: 400, message: 'Not a ZIP archive: entry "bad2.png" is damaged or shorter than its header declares' })
  // Right sizes, wrong CRC: a damaged entry, refused as Java's ZipInputStream does.
  await refuseEverywhere(t, app, 'wrong CRC', [{ name: 'crc.png', data: 'x'.repeat(200), crc: 1 }],
    { status: 400, message: 'Not a ZIP archive: entry "crc.png" fails its CRC check' })
  // Stored (not deflated) entry whose sizes disagree.
  await refuseEverywhere(t, app, 'stored entry with a lying size', [{ name: 'stored.png', data: Buffer.alloc(4096, 1), deflate: false, declaredSize: 100 }],
    { status: 400, message: /^Not a ZIP archive/ })
})

t.test('[hostile #28] a ZIP inside the mosaic ZIP is kept as an opaque file, never expanded', async (t) => {
  const app = await setup(t)
  const inner = rawZip([{ name: 'temp_20081109T000000_0.tif', data: GRANULE }, { name: '../../escape.txt', data: 'x' }])
  const r = await app.inject({ method: 'PUT', url: `${REST}/workspaces/ws/coveragestores/nested/file.imagemosaic`, headers: { ...ADMIN, ...ZIP },
    payload: rawZip([...baseEntries('mosaic'), { name: 'inner.zip', data: inner, deflate: false }]) })
  t.equal(r.statusCode, 200)
  const dir = path.join(app.config.dataDir, 'data', 'ws', 'nested')
  t.same(fs.readFileSync(path.join(dir, 'inner.zip')), inner, 'stored byte for byte')
  t.notOk(fs.existsSync(path.join(dir, 'temp_20081109T000000_0.tif')), 'its granule is not extracted')
  const granules = JSON.parse((await app.inject({ url: `${REST}/workspaces/ws/coveragestores/nested/coverages/nested/index/granules.json`, headers: ADMIN })).body)
  t.same(granules.features.map((f: any) => f.properties.location), ['temp_20081101T000000_0.tif'], 'only the outer granule is indexed')
  // A style package ignores it (only the SLD and images are read), so nothing of it lands either.
  const s = await send(app, 'style', rawZip([...baseEntries('style'), { name: 'inner.zip', data: inner, deflate: false }]))
  t.equal(s.statusCode, 201)
  t.notOk(fs.readdirSync(path.join(app.config.dataDir, 'styles')).some((f) => /inner|escape|temp_/.test(f)), 'nothing of the inner ZIP in styles/')
})

t.test('[hostile #29] a style ZIP without an SLD is 400 (GS: 403)', async (t) => {
  const app = await setup(t)
  const before = await snapshot(app, GETS, ADMIN)
  const res = await send(app, 'style', rawZip([{ name: 'gear.png', data: await png() }, { name: 'sub/x.sld', data: fixture('rain.sld') }]))
  await assertRefused(t, app, res, { status: 400, message: 'No sld file provided: the ZIP holds no .sld file at its top level' }, before, 'no sld', GETS, ADMIN)
  const put = await app.inject({ method: 'PUT', url: `${REST}/styles/existing`, headers: { ...ADMIN, ...ZIP }, payload: rawZip([{ name: 'gear.png', data: await png() }]) })
  await assertRefused(t, app, put, { status: 400, message: /^No sld file provided/ }, before, 'PUT with no sld', GETS, ADMIN)
})

t.test('[hostile #30] a style ZIP with an image name another style uses is created; that style\'s image is unchanged', async (t) => {
  const app = await setup(t)
  const mine = await png()
  let r = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...ZIP }, payload: rawZip([{ name: 'gear.sld', data: fixture('gear.sld') }, { name: 'gear.png', data: mine }]) })
  t.equal(r.statusCode, 201)
  r = await app.inject({ method: 'POST', url: `${REST}/styles?name=other`, headers: { ...ADMIN, ...ZIP }, payload: rawZip([{ name: 'other.sld', data: fixture('gear.sld') }, { name: 'gear.png', data: 'not mine' }]) })
  t.equal(r.statusCode, 201, 'two packages may carry a gear.png each (GeoServer overwrites the first)')
  r = await app.inject({ method: 'PUT', url: `${REST}/styles/existing`, headers: { ...ADMIN, ...ZIP }, payload: rawZip([{ name: 'existing.sld', data: fixture('rain.sld') }, { name: 'gear.png', data: 'not mine either' }]) })
  t.equal(r.statusCode, 200)
  t.same(fs.readFileSync(path.join(app.config.dataDir, 'styles', 'gear.png')), mine, 'the first style\'s image is untouched')
})

t.test('[hostile #31] a mosaic definition that points the index or the indexer elsewhere is 400', async (t) => {
  const app = await setup(t)
  const cases: Array<[string, RawEntry, RegExp]> = [
    ['file: database', { name: 'datastore.properties', data: 'SPI=org.geotools.data.h2.H2DataStoreFactory\ndatabase=file:/etc/x\n' }, /database must be a plain name/],
    ['remote JDBC host', { name: 'datastore.properties', data: 'SPI=org.geotools.data.postgis.PostgisNGDataStoreFactory\nhost=10.0.0.1\nport=5432\n' }, /names org.geotools.data.postgis.PostgisNGDataStoreFactory/],
    ['H2 with a host', { name: 'datastore.properties', data: 'SPI=org.geotools.data.h2.H2DataStoreFactory\nhost=db.example.org\n' }, /may not name a database host/],
    ['JDBC url', { name: 'datastore.properties', data: 'url=jdbc:h2:tcp://10.0.0.1/x\n' }, /key url is not supported/],
    ['JNDI', { name: 'datastore.properties', data: 'jndiReferenceName=java:comp/env/jdbc/x\n' }, /jndiReferenceName is not supported/],
    ['env substitution', { name: 'datastore.properties', data: 'SPI=org.geotools.data.h2.H2DataStoreFactory\npasswd=${ENV_SECRET}\n' }, /substitutions/],
    ['indexer env substitution', { name: 'indexer.xml', data: '<Indexer><parameters><parameter name="Name" value="${ENV_SECRET}"/></parameters></Indexer>' }, /substitutions/],
    ['IndexingDirectories outside', { name: 'indexer.properties', data: INDEXER + 'IndexingDirectories=/etc\n' }, /IndexingDirectories/],
    ['IndexingDirectories file: URL', { name: 'indexer.properties', data: INDEXER + 'IndexingDirectories=file:/etc\n' }, /IndexingDirectories/],
    ['AuxiliaryFile outside', { name: 'indexer.properties', data: INDEXER + 'AuxiliaryFile=../../../etc/passwd\n' }, /AuxiliaryFile/],
    ['AuxiliaryDatastoreFile outside', { name: 'indexer.properties', data: INDEXER + 'AuxiliaryDatastoreFile=/etc/x.properties\n' }, /AuxiliaryDatastoreFile/]
  ]
  for (const [label, entry, message] of cases) {
    const before = await snapshot(app, GETS, ADMIN)
    const entries = baseEntries('mosaic').filter((e) => e.name !== entry.name && !(String(entry.name).startsWith('indexer.') && String(e.name).startsWith('indexer.')))
    const res = await send(app, 'mosaic', rawZip([...entries, entry]))
    await assertRefused(t, app, res, { status: 400, message: new RegExp('^Invalid mosaic configuration: .*' + message.source) }, before, label, GETS, ADMIN)
    t.notMatch(res.body, /ENV_SECRET=|HOME=|PATH=/, `${label}: no environment value`)
  }
})

/** A GeoTIFF whose header claims width x height while its one strip holds the original 8x8 pixels. */
function lyingTiff (width: number, height: number, rowsPerStrip = true): Buffer {
  const b = Buffer.from(GRANULE)
  const le = b.toString('latin1', 0, 2) === 'II'
  const u16 = (o: number) => le ? b.readUInt16LE(o) : b.readUInt16BE(o)
  const w16 = (v: number, o: number) => le ? b.writeUInt16LE(v, o) : b.writeUInt16BE(v, o)
  const w32 = (v: number, o: number) => le ? b.writeUInt32LE(v, o) : b.writeUInt32BE(v, o)
  const ifd = le ? b.readUInt32LE(4) : b.readUInt32BE(4)
  for (let i = 0; i < u16(ifd); i++) {
    const e = ifd + 2 + i * 12
    const tag = u16(e)
    if (tag !== 256 && tag !== 257 && !(tag === 278 && rowsPerStrip)) continue // ImageWidth, ImageLength, RowsPerStrip
    const v = tag === 256 ? width : height
    if (u16(e + 2) === 3) w16(v, e + 8); else w32(v, e + 8)
  }
  return b
}

t.test('[hostile #28] a granule whose header claims more pixels than its data holds is skipped, not indexed; tiles still render', async (t) => {
  const app = await setup(t)
  const r = await app.inject({ method: 'PUT', url: `${REST}/workspaces/ws/coveragestores/liar/file.imagemosaic`, headers: { ...ADMIN, ...ZIP },
    payload: rawZip([...baseEntries('mosaic'), { name: 'temp_20081102T000000_0.tif', data: lyingTiff(65000, 65000) }]) })
  t.equal(r.statusCode, 200)
  t.match(String(r.headers.warning), /Skipped granule temp_20081102T000000_0\.tif: damaged: \d+ bytes of uncompressed data for a 65000x65000 image/)
  const granules = JSON.parse((await app.inject({ url: `${REST}/workspaces/ws/coveragestores/liar/coverages/liar/index/granules.json`, headers: ADMIN })).body)
  t.same(granules.features.map((f: any) => f.properties.location), ['temp_20081101T000000_0.tif'])
  t.notOk(fs.existsSync(path.join(app.config.dataDir, 'data', 'ws', 'liar', 'temp_20081102T000000_0.tif')), 'the damaged file is not kept')
  const tile = await app.inject({ url: `${BASE}/gwc/service/tms/1.0.0/ws:liar@EPSG:4326@png/0/1/0.png`, headers: ADMIN })
  t.equal(tile.statusCode, 200)
  // Claiming more rows than its strips cover (RowsPerStrip left at 8): the strip count gives it away.
  const r2 = await app.inject({ method: 'PUT', url: `${REST}/workspaces/ws/coveragestores/liar2/file.imagemosaic`, headers: { ...ADMIN, ...ZIP },
    payload: rawZip([...baseEntries('mosaic'), { name: 'temp_20081102T000000_0.tif', data: lyingTiff(8, 65000, false) }]) })
  t.equal(r2.statusCode, 200)
  t.match(String(r2.headers.warning), /Skipped granule temp_20081102T000000_0\.tif: damaged: 1 strips or tiles where a 8x65000 image needs 8125/)
  // Alone in the archive it is a 400 naming the file.
  const before = await snapshot(app, GETS, ADMIN)
  const alone = await send(app, 'mosaic', rawZip([...baseEntries('mosaic').filter((e) => !String(e.name).endsWith('.tif')), { name: 'temp_20081102T000000_0.tif', data: lyingTiff(65000, 65000) }]))
  await assertRefused(t, app, alone, { status: 400, message: /^No granule could be indexed: temp_20081102T000000_0\.tif: damaged/ }, before, 'alone', GETS, ADMIN)
})
