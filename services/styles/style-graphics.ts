// The images of a style's ExternalGraphics (point symbols, graphic fills and strokes). GeoServer
// resolves an OnlineResource's xlink:href relative to the style's folder and also fetches http(s)
// URLs; mapwarden reads only files of the style's folder (where a package's images are placed) and
// data: URIs. A remote URL (a map server fetching what a style names is a request forgery waiting
// to happen) and a path out of the folder are refused with a 400 naming the href when the style is
// saved (checkStyleGraphics) and when an SLD_BODY is compiled (vector-sld.ts). embedGraphics reads
// the images with async I/O on the event loop's thread and gives the render workers each one as a
// data: URI with its size: PNG as is, SVG as is, JPEG/GIF/WebP/TIFF converted to PNG by sharp (libuv's
// threads); an image that is missing or cannot be decoded is left out, so its Graphic's mark is drawn.
import fs from 'node:fs/promises'
import path from 'node:path'
import sharp from 'sharp'
import type { XmlValue } from '../files/xml.js'
import { within } from '../files/atomic.js'
import { InvalidStyle } from '../errors.js'
import type { ExternalImage, Graphic, VectorStyle } from '../render/vector/vector-style.js'

/** Largest image file embedded (bytes): a symbol, not a photograph. */
export const MAX_GRAPHIC_BYTES = 4 * 1024 * 1024
const DATA_URI = /^data:image\/(png|svg\+xml|jpeg|gif|webp)(;[^,]*)?,/i

export type GraphicSource = { data: string } | { file: string }

/** Where an ExternalGraphic's image comes from: a data: URI or a file relative to the style's folder. */
export function checkGraphicHref (href: unknown): GraphicSource {
  if (typeof href !== 'string' || href.trim() === '') throw InvalidStyle(' an ExternalGraphic needs an OnlineResource xlink:href')
  const h = href.trim()
  if (/^data:/i.test(h)) {
    if (!DATA_URI.test(h)) throw InvalidStyle(` the ExternalGraphic ${JSON.stringify(h.slice(0, 40))} is not a data: URI of a PNG, SVG, JPEG, GIF or WebP image`)
    return { data: h }
  }
  // GeoServer's relative "file:icon.png" is the file icon.png; any other scheme is a remote resource.
  const rel = /^file:(?!\/)/i.test(h) ? h.slice(5) : h
  if (/^[a-z][a-z0-9+.-]*:/i.test(rel)) throw InvalidStyle(` the ExternalGraphic ${JSON.stringify(h)} is not fetched: mapwarden draws images of the style's package (a name relative to the style) or data: URIs, never remote URLs`)
  let name: string
  try { name = decodeURIComponent(rel) } catch { throw InvalidStyle(` the ExternalGraphic ${JSON.stringify(h)} is not a valid URL path`) }
  const normal = path.posix.normalize(name)
  if (name.includes('\\') || name.includes('\0') || path.posix.isAbsolute(name) || normal === '..' || normal.startsWith('../') || normal === '.') {
    throw InvalidStyle(` the ExternalGraphic ${JSON.stringify(h)} is outside the style's folder: it must name a file of the style's package`)
  }
  return { file: normal }
}

/** Every ExternalGraphic href of a parsed SLD (prefixes stripped, as sld.ts parses it). */
function hrefsOf (node: XmlValue | undefined, out: string[], inGraphic = false): string[] {
  if (node === undefined || typeof node === 'string') return out
  if (Array.isArray(node)) { for (const n of node) hrefsOf(n, out, inGraphic); return out }
  for (const [key, value] of Object.entries(node)) {
    if (key === '$' || key === '_') continue
    if (inGraphic && key === 'OnlineResource') {
      for (const r of Array.isArray(value) ? value : [value]) {
        const attrs = typeof r === 'object' && !Array.isArray(r) ? r.$ as unknown as Record<string, string> | undefined : undefined
        out.push(attrs?.href ?? '')
      }
    } else hrefsOf(value, out, inGraphic || key === 'ExternalGraphic')
  }
  return out
}

/** Refuses a style whose ExternalGraphics name a remote URL or a file outside its folder. */
export function checkStyleGraphics (root: XmlValue): void {
  for (const href of hrefsOf(root, [])) checkGraphicHref(href)
}

const MIME: Record<string, string> = { png: 'image/png', svg: 'image/svg+xml' }

/** An image's bytes as the data: URI librsvg draws, with its size; undefined when it is not an image. */
async function embed (bytes: Buffer): Promise<Pick<ExternalImage, 'data' | 'width' | 'height'> | undefined> {
  try {
    // An SVG with a DTD is not passed on (entities are refused everywhere, services/files/xml.ts).
    if (/<!DOCTYPE|<!ENTITY/i.test(bytes.subarray(0, 4096).toString('latin1'))) return undefined
    const meta = await sharp(bytes).metadata()
    if (!meta.width || !meta.height || !meta.format) return undefined
    const png = MIME[meta.format] === undefined ? await sharp(bytes).png().toBuffer() : bytes
    return { data: `data:${MIME[meta.format] ?? 'image/png'};base64,${png.toString('base64')}`, width: meta.width, height: meta.height }
  } catch { return undefined }
}

async function readFileIn (dir: string, rel: string): Promise<Buffer | undefined> {
  let p: string
  try { p = within(dir, rel) } catch { return undefined }
  const st = await fs.lstat(p).catch(() => undefined)
  if (!st?.isFile() || st.size > MAX_GRAPHIC_BYTES) return undefined // a link, a folder, a missing or huge file
  return await fs.readFile(p).catch(() => undefined)
}

function dataBytes (uri: string): Buffer {
  const comma = uri.indexOf(',')
  const head = uri.slice(0, comma)
  const body = uri.slice(comma + 1)
  return /;base64$/i.test(head) ? Buffer.from(body, 'base64') : Buffer.from(decodeURIComponent(body))
}

/**
 * The style with every ExternalGraphic's image embedded; `dir` is the style's folder (undefined for
 * an SLD_BODY, whose images can only be data: URIs: a file is refused). The style given is not changed.
 */
export async function embedGraphics (style: VectorStyle, dir: string | undefined): Promise<VectorStyle> {
  const done = new Map<string, Promise<Pick<ExternalImage, 'data' | 'width' | 'height'> | undefined>>()
  const load = (href: string) => {
    let p = done.get(href)
    if (!p) {
      const src = checkGraphicHref(href)
      if ('file' in src && dir === undefined) throw InvalidStyle(` the ExternalGraphic ${JSON.stringify(href)} names a file, but a style sent with the request has no folder: use a data: URI or a style of the catalog`)
      p = ('data' in src ? Promise.resolve(dataBytes(src.data)) : readFileIn(dir!, src.file))
        .then((bytes) => bytes === undefined ? undefined : embed(bytes))
      done.set(href, p)
    }
    return p
  }
  const graphic = async (g: Graphic | undefined): Promise<Graphic | undefined> => {
    if (!g?.image) return g
    const got = await load(g.image.href)
    return { ...g, image: { ...g.image, ...got } }
  }
  const featureTypeStyles = await Promise.all(style.featureTypeStyles.map(async (fts) => ({
    ...fts,
    rules: await Promise.all(fts.rules.map(async (r) => ({
      ...r,
      symbolizers: await Promise.all(r.symbolizers.map(async (s) => {
        if (s.kind === 'point') return { ...s, ...(await graphic(s)) } as typeof s
        if (s.kind === 'polygon' && s.graphicFill) return { ...s, graphicFill: await graphic(s.graphicFill) }
        if (s.kind === 'line') return { ...s, ...(s.graphicStroke ? { graphicStroke: await graphic(s.graphicStroke) } : {}), ...(s.graphicFill ? { graphicFill: await graphic(s.graphicFill) } : {}) }
        return s
      }))
    })))
  })))
  return { ...style, featureTypeStyles }
}
