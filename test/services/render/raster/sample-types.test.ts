// Every GeoTIFF sample type GDAL writes (8/16/32-bit integers signed and unsigned, 32/64-bit
// floats), one or several bands, pixel- and band-interleaved, tiled and striped, with the
// compressions GDAL writes (none, LZW, DEFLATE with predictors, PACKBITS, ZSTD, JPEG), nodata
// values, internal masks and internal and external (.ovr) overviews. Each fixture is made by
// gdal_translate / gdaladdo (Debian's gdal-bin) and read back by GDAL as the reference: the
// renderer's band values at the granule's own resolution must equal GDAL's, sample for sample.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { tempDir } from '../../../helper.js'
import { makeTiff } from '../../../fixtures/mosaics/make.js'
import { renderBands, closeRenderCache } from '../../../../services/render/raster/render-mosaic.js'
import { readGranuleInfo } from '../../../../services/mosaics/geotiff-info.js'
import type { GranuleRef } from '../../../../services/render/raster/mosaic-types.js'

t.teardown(closeRenderCache)

const W = 70
const H = 50
const BBOX: [number, number, number, number] = [10, 40, 17, 45]

interface Variant {
  name: string
  type: string
  options?: string[]
  bands?: number
  nodata?: number
  /** Base values: signed (may be negative), fractional (floats), or bytes. */
  values: 'byte' | 'int8' | 'unsigned' | 'signed' | 'large' | 'fraction'
  mask?: boolean
  overviews?: 'internal' | 'external'
}

const VALUE = {
  byte: (x: number, y: number, b: number) => (x * 3 + y * 5 + b * 40) % 256,
  int8: (x: number, y: number, b: number) => (x * 3 + y * 5 + b * 40) % 256 - 128,
  unsigned: (x: number, y: number, b: number) => (x * 97 + y * 13 + b * 500) % 6000,
  signed: (x: number, y: number, b: number) => (x * 97 + y * 13 + b * 500) % 6000 - 3000,
  large: (x: number, y: number, b: number) => ((x * 97 + y * 13 + b * 500) % 6000) * 1000 - 2_000_000,
  fraction: (x: number, y: number, b: number) => ((x * 97 + y * 13 + b * 500) % 6000 - 3000) / 4
}

const VARIANTS: Variant[] = [
  { name: 'byte-none-striped', type: 'Byte', values: 'byte' },
  { name: 'byte-jpeg-tiled', type: 'Byte', values: 'byte', bands: 3, options: ['-co', 'COMPRESS=JPEG', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=32', '-co', 'BLOCKYSIZE=32'] },
  { name: 'byte-jpeg-ycbcr', type: 'Byte', values: 'byte', bands: 3, options: ['-co', 'COMPRESS=JPEG', '-co', 'PHOTOMETRIC=YCBCR'] },
  { name: 'byte-packbits-mask', type: 'Byte', values: 'byte', mask: true, options: ['-co', 'COMPRESS=PACKBITS'] },
  { name: 'int8-lzw', type: 'Byte', values: 'int8', options: ['-co', 'PIXELTYPE=SIGNEDBYTE', '-co', 'COMPRESS=LZW'] },
  { name: 'uint16-lzw-predictor', type: 'UInt16', values: 'unsigned', options: ['-co', 'COMPRESS=LZW', '-co', 'PREDICTOR=2'] },
  { name: 'int16-deflate-nodata', type: 'Int16', values: 'signed', nodata: -3000, options: ['-co', 'COMPRESS=DEFLATE'] },
  { name: 'int16-band-interleaved', type: 'Int16', values: 'signed', bands: 3, options: ['-co', 'INTERLEAVE=BAND', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16'] },
  { name: 'uint32-zstd', type: 'UInt32', values: 'large', options: ['-co', 'COMPRESS=ZSTD'] },
  { name: 'int32-packbits', type: 'Int32', values: 'large', options: ['-co', 'COMPRESS=PACKBITS'] },
  { name: 'float32-deflate-fp-predictor', type: 'Float32', values: 'fraction', nodata: -750, options: ['-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=3'] },
  { name: 'float64-lzw-tiled', type: 'Float64', values: 'fraction', options: ['-co', 'COMPRESS=LZW', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16'] },
  { name: 'int16-internal-overviews', type: 'Int16', values: 'signed', overviews: 'internal', options: ['-co', 'COMPRESS=DEFLATE'] },
  { name: 'uint16-external-overviews', type: 'UInt16', values: 'unsigned', overviews: 'external' }
]

/** A Float32 base with the variant's values (and a mask band) that gdal_translate converts. */
function base (dir: string, v: Variant): string {
  const bands = (v.bands ?? 1) + (v.mask ? 1 : 0)
  const f = VALUE[v.values]
  const file = path.join(dir, `${v.name}-base.tif`)
  fs.writeFileSync(file, makeTiff({
    width: W,
    height: H,
    bbox: BBOX,
    bands,
    type: 'float32',
    value: (x, y, b) => (v.mask && b === bands - 1 ? ((x + y) % 7 === 0 ? 0 : 255) : f(x, y, b))
  }))
  return file
}

function gdal (dir: string, v: Variant): string {
  const out = path.join(dir, `${v.name}.tif`)
  const bands = v.bands ?? 1
  const args = ['-q', '-ot', v.type, '-a_srs', 'EPSG:4326', ...(v.options ?? [])]
  for (let b = 1; b <= bands; b++) args.push('-b', String(b))
  if (v.mask) args.push('-mask', String(bands + 1), '--config', 'GDAL_TIFF_INTERNAL_MASK', 'YES')
  if (v.nodata !== undefined) args.push('-a_nodata', String(v.nodata))
  // The Float32 base carries its mask as a plain extra band, which libtiff warns about: kept quiet.
  execFileSync('gdal_translate', [...args, base(dir, v), out], { stdio: 'pipe' })
  if (v.overviews) execFileSync('gdaladdo', ['-q', '-r', 'nearest', ...(v.overviews === 'external' ? ['-ro'] : []), out, '2', '4'])
  return out
}

/** GDAL's reading of the file (or of one of its overview levels), as Float64 samples per band, and its mask. */
function reference (dir: string, file: string, bands: number, level?: number): { values: Float64Array[], mask: Uint8Array, width: number, height: number } {
  const raw = path.join(dir, `${path.basename(file)}-${level ?? 'full'}.raw`)
  const open = level === undefined ? [] : ['-oo', `OVERVIEW_LEVEL=${level}`]
  execFileSync('gdal_translate', ['-q', ...open, '-of', 'ENVI', '-co', 'INTERLEAVE=BSQ', '-ot', 'Float64', file, raw])
  const hdr = fs.readFileSync(raw.replace(/\.raw$/, '.hdr'), 'utf8')
  const width = Number(/samples\s*=\s*(\d+)/.exec(hdr)![1])
  const height = Number(/lines\s*=\s*(\d+)/.exec(hdr)![1])
  const buf = fs.readFileSync(raw)
  const all = new Float64Array(buf.buffer, buf.byteOffset, buf.length / 8)
  const values = Array.from({ length: bands }, (_, b) => all.slice(b * width * height, (b + 1) * width * height))
  // GDAL before 3.7 reads signed bytes (PIXELTYPE=SIGNEDBYTE, SampleFormat 2) as unsigned: the file holds -128..127.
  if (/PIXELTYPE=SIGNEDBYTE/.test(execFileSync('gdalinfo', [file]).toString())) for (const v of values) v.forEach((x, i) => { if (x > 127) v[i] = x - 256 })
  const maskRaw = path.join(dir, `${path.basename(file)}-${level ?? 'full'}.mask.raw`)
  execFileSync('gdal_translate', ['-q', ...open, '-of', 'ENVI', '-b', 'mask,1', file, maskRaw])
  return { values, mask: new Uint8Array(fs.readFileSync(maskRaw)), width, height }
}

for (const v of VARIANTS) {
  t.test(`${v.name}: band values equal GDAL's`, async (t) => {
    const dir = tempDir(t, 'mw-types')
    const file = gdal(dir, v)
    const info = await readGranuleInfo(file)
    const bands = v.bands ?? 1
    t.equal(info.bands, bands)
    const g: GranuleRef = { path: file, crs: info.crs, bbox: info.bbox, width: info.width, height: info.height, bands, nodata: info.nodata }
    // Full resolution, and for overviews the /4 level (a render at a quarter of the resolution reads it).
    for (const level of v.overviews ? [undefined, 1] : [undefined]) {
      const ref = reference(dir, file, bands, level)
      const out = await renderBands({ crs: 'EPSG:4326', bbox: BBOX, width: ref.width, height: ref.height, granules: [g], bands, ranges: info.ranges })
      let wrongValue = 0
      let wrongMask = 0
      for (let i = 0; i < ref.width * ref.height; i++) {
        const valid = ref.mask[i] !== 0
        if (Boolean(out.valid[i]) !== valid) { wrongMask++; continue }
        if (!valid) continue
        for (let b = 0; b < bands; b++) if (out.bands[b][i] !== Math.fround(ref.values[b][i])) wrongValue++
      }
      const where = level === undefined ? 'full resolution' : `overview level ${level}`
      t.equal(wrongMask, 0, `${where}: valid pixels as GDAL's mask`)
      t.equal(wrongValue, 0, `${where}: samples as GDAL reads them`)
    }
    // Statistics stored at harvest: the range of the valid samples, for stretching unstyled bands.
    const ref = reference(dir, file, bands)
    for (let b = 0; b < bands; b++) {
      let min = Infinity; let max = -Infinity
      ref.values[b].forEach((x, i) => { if (ref.mask[i] !== 0) { min = Math.min(min, x); max = Math.max(max, x) } })
      // 8-bit bands stretch over their type's range (as GeoServer renders bytes), wider types over their statistics.
      if (v.type === 'Byte') [min, max] = v.options?.includes('PIXELTYPE=SIGNEDBYTE') ? [-128, 127] : [0, 255]
      t.same(info.ranges[b], { min, max }, `band ${b + 1} range`)
    }
  })
}
