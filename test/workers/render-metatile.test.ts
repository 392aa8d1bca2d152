// The render pool's entry file, loaded the way the pool loads it: tasks called by name on a real
// Piscina thread.
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import sharp from 'sharp'
import { Piscina } from 'piscina'
import { tempDir } from '../helper.js'

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

function pool (t: Test): Piscina {
  const p = new Piscina({ filename: new URL('../../workers/render-metatile.js', import.meta.url).href, maxThreads: 1, minThreads: 1 })
  t.teardown(() => p.destroy())
  return p
}

t.test('the exceptionImage task (a WMS task exported through render-map.ts) returns an encoded image', async (t) => {
  const png = await pool(t).run({ width: 8, height: 4, format: 'image/png', transparent: false, bgcolor: [255, 255, 255] }, { name: 'exceptionImage' })
  t.ok(png instanceof Uint8Array)
  t.same(Array.from((png as Uint8Array).subarray(0, 8)), PNG_SIGNATURE)
  const { data, info } = await sharp(png as Uint8Array).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  t.same([info.width, info.height], [8, 4], 'the size asked for')
  t.same(Array.from(data.subarray(0, 4)), [255, 255, 255, 255], 'the background colour asked for, opaque')
})

t.test('the pyramidMetatile task writes its tiles in the worker and returns their sizes', async (t) => {
  const dir = tempDir(t)
  const tile = path.join(dir, 'tiles', '0.png')
  const result = await pool(t).run({
    children: ['a', 'b', 'c', 'd'].map((n) => path.join(dir, 'missing', `${n}.png`)),
    cols: 1,
    rows: 1,
    tileSize: 16,
    format: 'image/png',
    target: { tmpDir: path.join(dir, 'tmp'), paths: [tile] }
  }, { name: 'pyramidMetatile' })
  t.same(result, { writes: [{ bytes: fs.statSync(tile).size, replacedBytes: -1, mtimeMs: fs.statSync(tile).mtimeMs }] })
  t.same(Array.from(fs.readFileSync(tile).subarray(0, 8)), PNG_SIGNATURE)
  const meta = await sharp(tile).metadata()
  t.same([meta.width, meta.height], [16, 16], 'one tile of the size asked for')
})
