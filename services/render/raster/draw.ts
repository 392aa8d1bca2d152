// Draws one granule's band values into a render's BandData: nearest-neighbour sampling of the
// pixels the target needs, from the level overviews.ts picks (or its decimated copy), through
// libvips for plain 8-bit TIFFs and world-file images (PNG, JPEG, GIF), geotiff.js for the rest;
// nodata and masked pixels are skipped, so later granules draw over earlier ones only where they
// have data.
import sharp from 'sharp'
import type { BandData } from '../render-types.js'
import type { GranuleRef, RenderJob } from './mosaic-types.js'
import { WORLD_IMAGE } from './granule-files.js'
import { loadMask, loadTiles, maskOf, openTiff, type Samples } from './tiff-source.js'
import { coarsestLevel, decimates, pyramid, synthetic, SYNTH_FACTOR, type Synthetic } from './overviews.js'
import { mapPixels, range, sourceSpacing, type Mapping } from './pixel-map.js'
import { drawWindow, vipsReadable } from './vips-window.js'

/**
 * A world-file image (PNG, JPEG, GIF): libvips decodes the window the target needs, shrunk
 * (nearest neighbour) to about the target's resolution so memory follows the target's size, not the
 * image's; palettes come out as RGB and an alpha channel marks nodata.
 */
async function drawImage (job: RenderJob, g: GranuleRef, m: Mapping, cr: [number, number], rr: [number, number], out: BandData): Promise<void> {
  const x0 = Math.floor(cr[0])
  const y0 = Math.floor(rr[0])
  const ww = Math.min(g.width - 1, Math.floor(cr[1])) - x0 + 1
  const wh = Math.min(g.height - 1, Math.floor(rr[1])) - y0 + 1
  const k = Math.max(1, Math.floor(Math.min(...sourceSpacing(m, g, cr, rr))))
  const dw = Math.max(1, Math.ceil(ww / k))
  const dh = Math.max(1, Math.ceil(wh / k))
  let image = sharp(g.path, { limitInputPixels: false }).extract({ left: x0, top: y0, width: ww, height: wh })
  if (dw !== ww || dh !== wh) image = image.resize(dw, dh, { kernel: 'nearest', fit: 'fill' })
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true })
  const alpha = info.channels === 2 || info.channels === 4
  drawSynthetic(job, g, m, { width: dw, height: dh, spp: info.channels, data, alpha }, ww / dw, wh / dh, out, [x0, y0])
}

export async function drawGranule (job: RenderJob, g: GranuleRef, out: BandData): Promise<void> {
  const m = mapPixels(job, g)
  const cr = range(m.cols, g.width)
  const rr = range(m.rows, g.height)
  if (!cr || !rr) return
  if (WORLD_IMAGE.test(g.path)) return await drawImage(job, g, m, cr, rr, out)
  const [needX, needY] = sourceSpacing(m, g, cr, rr)
  const need = Math.min(needX, needY)
  const { images, key } = await openTiff(g.path)
  const levels = pyramid(images)
  const image = coarsestLevel(levels, g, needX, needY)
  const mask = maskOf(images, image)
  if (!mask && decimates(g, image, need)) {
    const level = images.indexOf(image)
    const syn = await synthetic(`${key}#${level}`, image, level === 0 && vipsReadable(g.path, image) ? g.path : undefined)
    drawSynthetic(job, g, m, syn, g.width / image.getWidth() * SYNTH_FACTOR, g.height / image.getHeight() * SYNTH_FACTOR, out)
    return
  }
  if (!mask && m.separable && image === levels[0] && vipsReadable(g.path, image)) {
    if (await drawWindow(job, g, m, image, out)) return
  }
  const iw = image.getWidth()
  const ih = image.getHeight()
  const fx = g.width / iw
  const fy = g.height / ih
  const tw = image.getTileWidth()
  const th = image.getTileHeight()
  const perRow = Math.ceil(iw / tw)
  const spp = image.getSamplesPerPixel()
  const nb = Math.min(out.bands.length, spp)
  const planar = image.planarConfiguration === 2
  const nodata = g.nodata
  const nodataIsNaN = nodata !== null && Number.isNaN(nodata)
  const { width: w, height: h } = job
  const bands = out.bands
  const valid = out.valid

  // Image pixel of each target column/row (or pixel), -1 outside the granule.
  const toPixel = (v: number, limit: number, f: number, size: number) => (v >= 0 && v < limit ? Math.min(size - 1, Math.floor(v / f)) : -1)
  const put = (o: number, tile: Samples[], lx: number, ly: number) => {
    const p = ly * tw + lx
    if (planar) {
      const first = tile[0][p]
      if (nodata !== null && (nodataIsNaN ? Number.isNaN(first) : first === nodata)) return
      for (let b = 0; b < nb; b++) bands[b][o] = tile[b][p]
    } else {
      const arr = tile[0]
      const base = p * spp
      const first = arr[base]
      if (nodata !== null && (nodataIsNaN ? Number.isNaN(first) : first === nodata)) return
      for (let b = 0; b < nb; b++) bands[b][o] = arr[base + b]
    }
    valid[o] = 1
  }

  if (m.separable) {
    const px = new Int32Array(w)
    for (let i = 0; i < w; i++) px[i] = toPixel(m.cols[i], g.width, fx, iw)
    const txs = new Set<number>()
    for (let i = 0; i < w; i++) if (px[i] >= 0) txs.add(Math.floor(px[i] / tw))
    const pys: number[] = []
    for (let j = 0; j < h; j++) pys.push(toPixel(m.rows[j], g.height, fy, ih))
    const masked = mask ? await loadMask(mask, px.filter((x) => x >= 0), pys.filter((y) => y >= 0)) : undefined
    let currentTy = -1
    let tiles = new Map<number, Samples[]>()
    for (let j = 0; j < h; j++) {
      const py = pys[j]
      if (py < 0) continue
      const ty = Math.floor(py / th)
      if (ty !== currentTy) { // rows of a north-up granule come in order: one band of tiles at a time
        tiles = await loadTiles(image, [...txs].map((tx) => ty * perRow + tx), nb)
        currentTy = ty
      }
      const ly = py - ty * th
      const rowOffset = j * w
      for (let i = 0; i < w; i++) {
        const x = px[i]
        if (x < 0 || masked?.(x, py)) continue
        const tx = Math.floor(x / tw)
        put(rowOffset + i, tiles.get(ty * perRow + tx)!, x - tx * tw, ly)
      }
    }
    return
  }
  const n = w * h
  const pix = new Int32Array(n * 2)
  const keys = new Set<number>()
  for (let o = 0; o < n; o++) {
    const x = toPixel(m.cols[o], g.width, fx, iw)
    const y = toPixel(m.rows[o], g.height, fy, ih)
    if (x < 0 || y < 0 || !(m.rows[o] >= 0 && m.rows[o] < g.height) || !(m.cols[o] >= 0)) { pix[o * 2] = -1; continue }
    pix[o * 2] = x
    pix[o * 2 + 1] = y
    keys.add(Math.floor(y / th) * perRow + Math.floor(x / tw))
  }
  const tiles = await loadTiles(image, keys, nb)
  const masked = mask ? await loadMask(mask, pix.filter((_, k) => k % 2 === 0 && pix[k] >= 0), pix.filter((_, k) => k % 2 === 1 && pix[k - 1] >= 0)) : undefined
  for (let o = 0; o < n; o++) {
    const x = pix[o * 2]
    if (x < 0) continue
    const y = pix[o * 2 + 1]
    if (masked?.(x, y)) continue
    const tx = Math.floor(x / tw)
    const ty = Math.floor(y / th)
    put(o, tiles.get(ty * perRow + tx)!, x - tx * tw, y - ty * th)
  }
}

/**
 * Nearest-neighbour sampling from an in-memory level: a decimated one (synthetic() in overviews.ts), or a
 * decoded window of a world-file image whose upper-left full-resolution pixel is `origin`. One
 * level pixel spans fx x fy full-resolution pixels.
 */
function drawSynthetic (job: RenderJob, g: GranuleRef, m: Mapping, syn: Synthetic, fx: number, fy: number, out: BandData,
  origin: [number, number] = [0, 0]): void {
  const { width: w, height: h } = job
  const nb = Math.min(out.bands.length, syn.spp - (syn.alpha ? 1 : 0))
  const nodata = g.nodata
  const nodataIsNaN = nodata !== null && Number.isNaN(nodata)
  const [ox, oy] = origin
  const toPixel = (v: number, limit: number, f: number, size: number, o: number) =>
    (v >= 0 && v < limit ? Math.max(0, Math.min(size - 1, Math.floor((v - o) / f))) : -1)
  const put = (o: number, x: number, y: number) => {
    const base = (y * syn.width + x) * syn.spp
    const first = syn.data[base]
    if (nodata !== null && (nodataIsNaN ? Number.isNaN(first) : first === nodata)) return
    if (syn.alpha && syn.data[base + syn.spp - 1] === 0) return
    for (let b = 0; b < nb; b++) out.bands[b][o] = syn.data[base + b]
    out.valid[o] = 1
  }
  if (m.separable) {
    const px = new Int32Array(w)
    for (let i = 0; i < w; i++) px[i] = toPixel(m.cols[i], g.width, fx, syn.width, ox)
    for (let j = 0; j < h; j++) {
      const y = toPixel(m.rows[j], g.height, fy, syn.height, oy)
      if (y < 0) continue
      for (let i = 0; i < w; i++) if (px[i] >= 0) put(j * w + i, px[i], y)
    }
    return
  }
  for (let o = 0; o < w * h; o++) {
    const x = toPixel(m.cols[o], g.width, fx, syn.width, ox)
    const y = toPixel(m.rows[o], g.height, fy, syn.height, oy)
    if (x >= 0 && y >= 0) put(o, x, y)
  }
}
