import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import yazl from 'yazl'
import { extractZip, listZip } from '../../../services/files/zip.js'
import { tempDir } from '../../helper.js'

type Entry = { name: string, data?: Buffer | string, mode?: number, compress?: boolean }

async function makeZip (dir: string, entries: Entry[]): Promise<string> {
  const zip = new yazl.ZipFile()
  for (const e of entries) zip.addBuffer(Buffer.from(e.data ?? 'x'), e.name, { mode: e.mode, compress: e.compress ?? true })
  zip.end()
  const file = path.join(dir, `z${Math.random().toString(36).slice(2)}.zip`)
  await new Promise<void>((resolve, reject) => zip.outputStream.pipe(fs.createWriteStream(file)).on('close', () => resolve()).on('error', reject))
  return file
}

const LIMITS = { maxEntries: 100, maxBytes: 1024 * 1024 }

t.test('a good archive is extracted whole', async (t) => {
  const dir = tempDir(t)
  const file = await makeZip(dir, [{ name: 'a.sld', data: '<sld/>' }, { name: 'img/gear.png', data: 'png' }])
  const out = path.join(dir, 'out')
  const got = await extractZip(file, out, LIMITS)
  t.same(got.map((e) => e.name).sort(), ['a.sld', 'img/gear.png'])
  t.equal(fs.readFileSync(path.join(out, 'img/gear.png'), 'utf8'), 'png')
})

t.test('unsafe entries are refused before anything is written', async (t) => {
  const dir = tempDir(t)
  const cases: Array<[Entry[], RegExp]> = [
    [[{ name: 'ok.txt' }, { name: 'a/../../x' }], /Unsafe ZIP entry|invalid relative path/],
    [[{ name: 'ok.txt' }, { name: 'C:\\x' }], /Unsafe ZIP entry/],
    [[{ name: 'ok.txt' }, { name: 'lnk', data: '/etc', mode: 0o120777 }], /link or special file/],
    [[{ name: 'A.png' }, { name: 'a.png' }], /duplicate or case-colliding/],
    [[{ name: 'bad\u0001name' }], /control character/]
  ]
  for (const [entries, msg] of cases) {
    let file: string
    try { file = await makeZip(dir, entries) } catch { continue } // yazl itself refuses some names
    const out = path.join(dir, 'out-' + Math.random())
    await t.rejects(extractZip(file, out, LIMITS), msg)
    t.notOk(fs.existsSync(out), 'nothing extracted')
  }
})

t.test('size and count limits: a bomb is refused', async (t) => {
  const dir = tempDir(t)
  const bomb = await makeZip(dir, [{ name: 'zeros.bin', data: Buffer.alloc(4 * 1024 * 1024) }])
  t.ok(fs.statSync(bomb).size < 10_000, 'small on the wire')
  await t.rejects(listZip(bomb, LIMITS), { code: 'MW_ZIP_TOO_LARGE' })
  const many = await makeZip(dir, Array.from({ length: 101 }, (_, i) => ({ name: `f${i}` })))
  await t.rejects(listZip(many, LIMITS), { code: 'MW_ZIP_TOO_MANY_ENTRIES' })
  const notZip = path.join(dir, 'x.zip')
  fs.writeFileSync(notZip, '<StyledLayerDescriptor/>')
  await t.rejects(listZip(notZip, LIMITS), { code: 'MW_ZIP_NOT_A_ZIP' })
})
