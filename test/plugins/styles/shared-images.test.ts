// Style packages that carry an image of the same file name (icon names such as gear.png or
// arrow.png are common to many packages): each style keeps its own bytes, identical bytes are
// stored once, and a purge removes only what no other style uses (issue 16, item 3).
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import yauzl from 'yauzl'
import sharp from 'sharp'
import { build, ADMIN, BASE } from '../../helper.js'
import { addWorkspace, fixture, png, zip } from './helpers.js'

const REST = `${BASE}/rest`
const ZIP = { 'content-type': 'application/zip' }
const green = () => sharp({ create: { width: 4, height: 4, channels: 3, background: '#00ff00' } }).png().toBuffer()
const blue = () => sharp({ create: { width: 4, height: 4, channels: 3, background: '#0000ff' } }).png().toBuffer()

/** name -> bytes of every entry of a ZIP. */
function unzip (buf: Buffer): Promise<Record<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, z) => {
      if (err || !z) return reject(err)
      const out: Record<string, Buffer> = {}
      z.on('entry', (e: yauzl.Entry) => z.openReadStream(e, (err2, s) => {
        if (err2 || !s) return reject(err2)
        const chunks: Buffer[] = []
        s.on('data', (c: Buffer) => chunks.push(c)).on('end', () => { out[e.fileName] = Buffer.concat(chunks); z.readEntry() })
      }))
      z.on('end', () => resolve(out)).on('error', reject)
      z.readEntry()
    })
  })
}

/** Every file under dir holding exactly these bytes. */
function filesHolding (dir: string, bytes: Buffer): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (fs.readFileSync(p).equals(bytes)) out.push(path.relative(dir, p))
    }
  }
  if (fs.existsSync(dir)) walk(dir)
  return out.sort()
}

/** The image the style's stored SLD names by its relative xlink:href, as GeoServer resolves it. */
function imageSeenBySld (dir: string, row: { file: string }): Buffer {
  const sldPath = path.join(dir, row.file)
  const href = /xlink:href="([^"]+)"/.exec(fs.readFileSync(sldPath, 'utf8'))![1]
  return fs.readFileSync(path.resolve(path.dirname(sldPath), href))
}

for (const ws of [undefined, 'poi']) {
  const styles = ws === undefined ? `${REST}/styles` : `${REST}/workspaces/${ws}/styles`
  t.test(`${ws ? 'workspace' : 'global'} styles: two packages with a gear.png of their own both succeed and keep their bytes`, async (t) => {
    const app = await build(t)
    if (ws) await addWorkspace(app, ws)
    const dir = app.styles.folder(ws)
    const [red, grn, blu] = [await png(), await green(), await blue()]
    const post = async (name: string, image: Buffer) => app.inject({
      method: 'POST', url: `${styles}?name=${name}`, headers: { ...ADMIN, ...ZIP }, payload: await zip([['gear.sld', fixture('gear.sld')], ['gear.png', image]])
    })
    const pkg = async (name: string) => {
      const res = await app.inject({ method: 'GET', url: `${styles}/${name}.zip`, headers: ADMIN })
      t.equal(res.statusCode, 200, `GET ${name}.zip`)
      t.equal(res.headers['content-type'], 'application/zip')
      return unzip(res.rawPayload)
    }
    const row = async (name: string) => await app.styles.get(ws, name) as { file: string }

    let res = await post('gear', red)
    t.equal(res.statusCode, 201)
    res = await post('other', grn)
    t.equal(res.statusCode, 201, 'the second package with another gear.png is created')
    t.equal(res.body, 'other')
    res = await post('same', red)
    t.equal(res.statusCode, 201)

    t.same(Object.keys(await pkg('gear')).sort(), ['gear.png', 'gear.sld'])
    t.same((await pkg('gear'))['gear.png'], red, 'gear serves its own image')
    t.same((await pkg('other'))['gear.png'], grn, 'other serves its own image')
    t.same((await pkg('same'))['gear.png'], red)
    t.same((await pkg('other'))['other.sld'].toString(), fixture('gear.sld'), 'the SLD as sent, under the style\'s file name')
    t.same(imageSeenBySld(dir, await row('gear')), red, "gear's relative href names its own bytes")
    t.same(imageSeenBySld(dir, await row('other')), grn, "other's relative href names its own bytes")
    t.same(filesHolding(dir, red), ['gear.png'], 'identical bytes are stored once')
    t.equal(filesHolding(dir, grn).length, 1)

    // A new package for other: its image changes, nobody else's does.
    res = await app.inject({ method: 'PUT', url: `${styles}/other`, headers: { ...ADMIN, ...ZIP }, payload: await zip([['x.sld', fixture('gear.sld')], ['gear.png', blu]]) })
    t.equal(res.statusCode, 200)
    t.same((await pkg('other'))['gear.png'], blu)
    t.same(imageSeenBySld(dir, await row('other')), blu)
    t.same((await pkg('gear'))['gear.png'], red)
    t.same(filesHolding(dir, grn), [], 'the replaced image is gone')

    // A new package for same, whose gear.png it shares with gear: gear keeps red.
    res = await app.inject({ method: 'PUT', url: `${styles}/same`, headers: { ...ADMIN, ...ZIP }, payload: await zip([['x.sld', fixture('gear.sld')], ['gear.png', grn]]) })
    t.equal(res.statusCode, 200)
    t.same((await pkg('same'))['gear.png'], grn)
    t.same(imageSeenBySld(dir, await row('same')), grn)
    t.same((await pkg('gear'))['gear.png'], red)
    t.same(imageSeenBySld(dir, await row('gear')), red)

    // Purges remove only what no other style uses.
    res = await post('third', red)
    t.equal(res.statusCode, 201)
    res = await app.inject({ method: 'DELETE', url: `${styles}/gear?purge=true`, headers: ADMIN })
    t.equal(res.statusCode, 200)
    t.same((await pkg('third'))['gear.png'], red, 'an image another style uses survives the purge')
    t.same(imageSeenBySld(dir, await row('third')), red)
    res = await app.inject({ method: 'DELETE', url: `${styles}/third?purge=true`, headers: ADMIN })
    t.same(filesHolding(dir, red), [], 'the last user purged: the image goes')
    for (const name of ['other', 'same']) {
      res = await app.inject({ method: 'DELETE', url: `${styles}/${name}?purge=true`, headers: ADMIN })
      t.equal(res.statusCode, 200)
    }
    t.same(fs.readdirSync(dir).filter((f) => f !== 'packages'), [], 'every file purged')
    t.same(fs.existsSync(path.join(dir, 'packages')) ? fs.readdirSync(path.join(dir, 'packages')) : [], [], 'no empty sub-folder left')
  })
}

t.test('a style moved to another workspace takes its own image, and the one left behind keeps its', async (t) => {
  const app = await build(t)
  await addWorkspace(app, 'a')
  await addWorkspace(app, 'b')
  const [red, grn] = [await png(), await green()]
  for (const [ws, name, image] of [['a', 'gear', red], ['a', 'other', grn], ['b', 'gear2', red]] as const) {
    const res = await app.inject({ method: 'POST', url: `${REST}/workspaces/${ws}/styles?name=${name}`, headers: { ...ADMIN, ...ZIP }, payload: await zip([['gear.sld', fixture('gear.sld')], ['gear.png', image]]) })
    t.equal(res.statusCode, 201)
  }
  let res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/a/styles/other`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"style":{"workspace":{"name":"b"}}}' })
  t.equal(res.statusCode, 200, 'moved next to a style whose gear.png differs')
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/b/styles/other.zip`, headers: ADMIN })
  t.same((await unzip(res.rawPayload))['gear.png'], grn)
  t.same(imageSeenBySld(app.styles.folder('b'), await app.styles.get('b', 'other') as { file: string }), grn)
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/b/styles/gear2.zip`, headers: ADMIN })
  t.same((await unzip(res.rawPayload))['gear.png'], red)
  res = await app.inject({ method: 'GET', url: `${REST}/workspaces/a/styles/gear.zip`, headers: ADMIN })
  t.same((await unzip(res.rawPayload))['gear.png'], red)
  t.same(filesHolding(app.styles.folder('a'), grn), [], 'the moved image left folder a')
})
