// Decoders of GeoTIFF tiles and strips: DEFLATE through node's zlib and JPEG through libvips where
// geotiff.js's own JavaScript decoders are slower or differ from GDAL, geotiff.js's for the rest.
// geotiff.js itself is loaded here, lazily, for every module of the renderer.
import { inflateSync } from 'node:zlib'
import sharp from 'sharp'
import threads from 'node:worker_threads'
import type { GeoTIFFImage } from 'geotiff'

// geotiff.js loads the 'web-worker' package, which, evaluated in a worker thread whose workerData is
// undefined (Piscina's default), takes itself for a web worker and throws. Give it an empty
// workerData before geotiff is first loaded, hence the dynamic import.
if (!threads.isMainThread && (threads.workerData === undefined || threads.workerData === null)) {
  (threads as { workerData: unknown }).workerData = {}
}
let geotiffModule: Promise<typeof import('geotiff')> | undefined
export const geotiff = () => (geotiffModule ??= import('geotiff'))

type Decoder = { decode (buffer: ArrayBufferLike): Promise<ArrayBufferLike> }

// geotiff.js does not export its decoder-parameter function; these are the same parameters.
async function decoderParameters (image: GeoTIFFImage): Promise<Record<string, unknown>> {
  const fd = image.getFileDirectory()
  const load = (tag: string) => fd.loadValue(tag as any)
  const tiled = !fd.hasTag('StripOffsets')
  const params: Record<string, unknown> = {
    tileWidth: tiled ? await load('TileWidth') : await load('ImageWidth'),
    tileHeight: tiled ? await load('TileLength') : ((await load('RowsPerStrip')) || (await load('ImageLength'))),
    planarConfiguration: await load('PlanarConfiguration'),
    bitsPerSample: await load('BitsPerSample'),
    predictor: (await load('Predictor')) || 1
  }
  if (fd.hasTag('JPEGTables')) params.JPEGTables = await load('JPEGTables')
  return params
}

/**
 * DEFLATE through node's native zlib (several times faster than the JavaScript inflate), with the
 * horizontal-differencing predictor for little-endian integer samples; anything else goes to
 * geotiff.js's own decoders.
 */
function nativeDeflate (image: GeoTIFFImage, params: Record<string, unknown>): Decoder | undefined {
  const predictor = Number(params.predictor ?? 1)
  const bits = image.getBitsPerSample(0)
  const format = image.getSampleFormat(0)
  if (predictor !== 1 && predictor !== 2) return undefined
  if (predictor === 2 && (format === 3 || (bits > 8 && !image.littleEndian) || ![8, 16, 32].includes(bits))) return undefined
  const width = Number(params.tileWidth)
  const spp = image.planarConfiguration === 2 ? 1 : image.getSamplesPerPixel()
  return {
    async decode (buffer: ArrayBufferLike) {
      const inflated = inflateSync(new Uint8Array(buffer))
      const out = new Uint8Array(inflated.length)
      out.set(inflated)
      if (predictor === 2) {
        const values = bits === 8 ? out : bits === 16 ? new Uint16Array(out.buffer, 0, out.length >> 1) : new Uint32Array(out.buffer, 0, out.length >> 2)
        const row = width * spp
        for (let start = 0; start + row <= values.length; start += row) {
          for (let i = start + spp; i < start + row; i++) values[i] += values[i - spp]
        }
      }
      return out.buffer
    }
  }
}

/**
 * JPEG (compression 7) through libvips' libjpeg-turbo, as GDAL decodes it: the shared JPEGTables
 * spliced before each tile's abbreviated stream, chroma upsampled smoothly and YCbCr converted to
 * RGB by the codec (geotiff.js's decoder replicates chroma, which differs from GDAL by tens of levels
 * at edges, and leaves YCbCr as it is).
 */
function libjpeg (params: Record<string, unknown>): Decoder {
  const tables = params.JPEGTables ? Buffer.from(params.JPEGTables as ArrayLike<number>) : undefined
  return {
    async decode (buffer: ArrayBufferLike) {
      let stream = Buffer.from(buffer)
      // tables: SOI ... EOI; tile: SOI ... EOI. Joined: the tables without their EOI, the tile without its SOI.
      if (tables && tables.length > 4) stream = Buffer.concat([tables.subarray(0, tables.length - 2), stream.subarray(2)])
      const { data } = await sharp(stream, { limitInputPixels: false }).raw().toBuffer({ resolveWithObject: true })
      return data.buffer.slice(data.byteOffset, data.byteOffset + data.length)
    }
  }
}

const decoders = new WeakMap<GeoTIFFImage, Promise<Decoder>>()
export function decoderFor (image: GeoTIFFImage): Promise<Decoder> {
  let d = decoders.get(image)
  if (!d) {
    const compression = Number(image.getFileDirectory().getValue('Compression') ?? 1)
    d = decoderParameters(image).then(async (params) => {
      const native = compression === 8 || compression === 32946 ? nativeDeflate(image, params)
        : compression === 7 && image.getBitsPerSample(0) === 8 && image.planarConfiguration !== 2 ? libjpeg(params) : undefined
      return native ?? (await (await geotiff()).getDecoder(compression, params as any) as unknown as Decoder)
    })
    decoders.set(image, d)
  }
  return d
}
