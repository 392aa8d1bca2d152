// World-file images as mosaic granules: PNG (RGB and paletted), JPEG and GIF placed by
// .pgw/.jgw/.gfw/.wld, with or without a .prj (without one: the mosaic's CRS). Uploaded, harvested,
// rendered; pixels compared with gdalwarp (Debian's gdal-bin) of the same files.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import sharp from 'sharp'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { makeZip } from '../../fixtures/mosaics/make.js'
import { crsFromPrj } from '../../../services/mosaics/world-file.js'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const SIZE = 64
const PRJ_4326 = 'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]'

/** World file of a SIZE x SIZE image covering [minx, miny, minx + 8, miny + 8] degrees. */
function worldFile (minx: number, miny: number): string {
  const px = 8 / SIZE
  return [px, 0, 0, -px, minx + px / 2, miny + 8 - px / 2].join('\n') + '\n'
}

/** A smooth RGB pattern (every pixel distinct), so a shifted pixel shows. */
function rgbPattern (): Buffer {
  const raw = Buffer.alloc(SIZE * SIZE * 3)
  for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) raw.set([x * 4, y * 4, (x + y) * 2], (y * SIZE + x) * 3)
  return raw
}

/** Eight colour stripes (a palette survives quantisation exactly). */
function stripes (): Buffer {
  const colours = [[230, 25, 75], [60, 180, 75], [255, 225, 25], [0, 130, 200], [245, 130, 48], [145, 30, 180], [70, 240, 240], [240, 50, 230]]
  const raw = Buffer.alloc(SIZE * SIZE * 3)
  for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) raw.set(colours[Math.floor((x + y) / 16) % 8], (y * SIZE + x) * 3)
  return raw
}

const input = (raw: Buffer) => sharp(raw, { raw: { width: SIZE, height: SIZE, channels: 3 } })

async function files (): Promise<Record<string, Buffer | string>> {
  return {
    'a.png': await input(rgbPattern()).png().toBuffer(),
    'a.pgw': worldFile(0, 0),
    'a.prj': PRJ_4326,
    'b.jpg': await input(rgbPattern()).jpeg({ quality: 95 }).toBuffer(),
    'b.jgw': worldFile(8, 0), // no .prj: the mosaic's CRS
    'c.gif': await input(stripes()).gif().toBuffer(),
    'c.gfw': worldFile(0, -8),
    'd.png': await input(stripes()).png({ palette: true, colours: 8 }).toBuffer(),
    'd.wld': worldFile(8, -8)
  }
}

/** gdalwarp of the given files (paletted ones expanded to RGB first) into an EPSG:4326 window, as RGBA. */
async function gdalRender (t: any, dir: string, names: string[], bbox: number[], size: number): Promise<Buffer> {
  const work = tempDir(t, 'mw-gdal')
  const inputs = names.map((n) => {
    const out = path.join(work, `${n}.tif`)
    execFileSync('gdal_translate', ['-q', ...(/\.(gif)$|^d\./.test(n) ? ['-expand', 'rgb'] : []), '-a_srs', 'EPSG:4326', path.join(dir, n), out])
    return out
  })
  const out = path.join(work, 'out.tif')
  execFileSync('gdalwarp', ['-q', '-t_srs', 'EPSG:4326', '-te', ...bbox.map(String), '-ts', String(size), String(size), '-r', 'near', '-dstalpha', ...inputs, out])
  return await sharp(out).ensureAlpha().raw().toBuffer()
}

function compare (t: any, ours: Buffer, gdal: Buffer, what: string, tolerance: number) {
  let coverage = 0
  let colour = 0
  let covered = 0
  for (let i = 0; i < ours.length; i += 4) {
    const a = ours[i + 3] > 0
    const b = gdal[i + 3] > 0
    if (a !== b) { coverage++; continue }
    if (!a) continue
    covered++
    if (Math.abs(ours[i] - gdal[i]) > tolerance || Math.abs(ours[i + 1] - gdal[i + 1]) > tolerance || Math.abs(ours[i + 2] - gdal[i + 2]) > tolerance) colour++
  }
  const n = ours.length / 4
  t.ok(covered > 1000, `${what}: ${covered} pixels covered by both`)
  t.ok(coverage / n < 0.01, `${what}: coverage differs from gdalwarp at ${coverage} of ${n} pixels`)
  t.ok(colour / n < 0.01, `${what}: colour differs (by more than ${tolerance}) at ${colour} of ${n} pixels`)
}

t.test('a ZIP of PNG, JPEG and GIF granules with world files makes a mosaic whose tiles match gdalwarp', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const entries = await files()
  const res = await app.inject({ method: 'PUT', url: `${R}/world/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip(entries) })
  t.equal(res.statusCode, 200, res.body)
  t.notOk(res.headers.warning, 'no granule skipped')
  const list = JSON.parse((await app.inject({ method: 'GET', url: `${R}/world/coverages/world/index/granules.json`, headers: ADMIN })).body)
  t.same(list.features.map((f: any) => f.properties.location), ['a.png', 'b.jpg', 'c.gif', 'd.png'])
  const coverage = JSON.parse((await app.inject({ method: 'GET', url: `${R}/world/coverages/world.json`, headers: ADMIN })).body).coverage
  t.same([coverage.srs, coverage.latLonBoundingBox.minx, coverage.latLonBoundingBox.miny, coverage.latLonBoundingBox.maxx, coverage.latLonBoundingBox.maxy],
    ['EPSG:4326', 0, -8, 16, 8])

  const dir = tempDir(t, 'mw-world')
  for (const [name, data] of Object.entries(entries)) fs.writeFileSync(path.join(dir, name), data)
  // EPSG:4326 grid, zoom 3 (22.5 degree tiles): north tile x=8 y=3 holds a.png and b.jpg, the south one c.gif and d.png.
  for (const [y, names, bbox, tolerance] of [
    [3, ['a.png', 'b.jpg'], [0, 0, 22.5, 22.5], 3], // JPEG: libjpeg-turbo and GDAL's libjpeg may round the IDCT differently
    [4, ['c.gif', 'd.png'], [0, -22.5, 22.5, 0], 0]
  ] as Array<[number, string[], number[], number]>) {
    const tile = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/ws:world/EPSG:4326/3/8/${y}.png` })
    t.equal(tile.statusCode, 200, `tile 3/8/${y}`)
    const ours = await sharp(tile.rawPayload).ensureAlpha().raw().toBuffer()
    compare(t, ours, await gdalRender(t, dir, names, bbox, 256), names.join(' + '), tolerance)
  }
})

t.test('a world-file image is harvested, and a purge removes it with its sidecars', async (t) => {
  const root = tempDir(t, 'mw-harvest')
  const app = await build(t, { harvestRoots: [root] })
  await app.workspaces.create({ name: 'ws' })
  const entries = await files()
  const first = await app.inject({ method: 'PUT', url: `${R}/grow/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip({ 'a.png': entries['a.png'], 'a.pgw': entries['a.pgw'], 'a.prj': entries['a.prj'] }) })
  t.equal(first.statusCode, 200, first.body)
  for (const name of ['d.png', 'd.wld', 'orphan.png']) fs.writeFileSync(path.join(root, name), name === 'orphan.png' ? entries['d.png'] : entries[name])
  const res = await app.inject({ method: 'POST', url: `${R}/grow/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: root })
  t.equal(res.statusCode, 201, res.body)
  const list = JSON.parse((await app.inject({ method: 'GET', url: `${R}/grow/coverages/grow/index/granules.json`, headers: ADMIN })).body)
  t.same(list.features.map((f: any) => path.basename(f.properties.location)), ['a.png', 'd.png'], 'a PNG without a world file is not a granule')
  const del = await app.inject({ method: 'DELETE', url: `${R}/grow/coverages/grow/index/granules?filter=${encodeURIComponent("location LIKE '%d.png'")}&purge=all`, headers: ADMIN })
  t.equal(del.statusCode, 200, del.body)
  t.same(fs.readdirSync(root).sort(), ['orphan.png'], 'the image and its world file are purged')
})

t.test('bad world files and .prj files skip the granule with the reason', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const png = (await files())['a.png']
  const res = await app.inject({
    method: 'PUT',
    url: `${R}/bad/file.imagemosaic`,
    headers: { ...ADMIN, 'content-type': 'application/zip' },
    payload: await makeZip({
      'good.png': png, 'good.pgw': worldFile(0, 0), 'good.prj': PRJ_4326,
      'rotated.png': png, 'rotated.pgw': '0.1\n0.01\n0\n-0.1\n0\n0\n',
      'short.png': png, 'short.pgw': '0.1\n0\n0\n',
      'odd.png': png, 'odd.pgw': worldFile(0, 0), 'odd.prj': 'PROJCS["Somewhere_Local",GEOGCS["x"]]',
      'broken.png': Buffer.from('not a png at all'), 'broken.pgw': worldFile(0, 0)
    })
  })
  t.equal(res.statusCode, 200, res.body)
  const warning = String(res.headers.warning)
  t.match(warning, /rotated\.png: rotated rasters are not supported/)
  t.match(warning, /short\.png: its world file does not hold six numbers/)
  t.match(warning, /odd\.png: its \.prj names a CRS without an EPSG code mapwarden knows/)
  t.match(warning, /broken\.png: not a readable image/)
  const list = JSON.parse((await app.inject({ method: 'GET', url: `${R}/bad/coverages/bad/index/granules.json`, headers: ADMIN })).body)
  t.same(list.features.map((f: any) => f.properties.location), ['good.png'])
})

t.test('crsFromPrj reads EPSG authorities and the ESRI names world files come with', async (t) => {
  t.equal(crsFromPrj(PRJ_4326), 'EPSG:4326')
  t.equal(crsFromPrj('PROJCS["WGS_1984_UTM_Zone_32N",GEOGCS["GCS_WGS_1984"],PROJECTION["Transverse_Mercator"]]'), 'EPSG:32632')
  t.equal(crsFromPrj('PROJCS["WGS 84 / UTM zone 33S",GEOGCS["WGS 84"]]'), 'EPSG:32733')
  t.equal(crsFromPrj('PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984"]]'), 'EPSG:3857')
  t.equal(crsFromPrj('PROJCS["RGF93 / Lambert-93",GEOGCS["RGF93",AUTHORITY["EPSG","4171"]],AUTHORITY["EPSG","2154"]]'), 'EPSG:2154')
})
