// A cascaded WMTS layer's side of the remote (GeoServer's WMTS store, GeoTools' WebMapTileServer):
// the remote's WMTS 1.0.0 capabilities read into its layers (identifier, title, bounds, styles,
// formats, tile matrix set links, ResourceURL templates) and its tile matrix sets; the tile URL of a
// tile (the layer's ResourceURL template of the format, as GeoTools prefers, else GetTile KVP on the
// operation's Get address); and the plan of a picture of any box and size in a matrix set's CRS: the
// covering tiles of the matrix whose pixels are the largest not coarser than the picture's (service.ts
// mosaics them; the render pool resamples or reprojects the mosaic, render/image-job.ts).
import { parseXml, type XmlValue } from '../files/xml.js'
import { attr, child, children, childText, rootOf, text } from '../files/xml-nodes.js'
import { epsgEntry } from '../render/epsg.js'

export interface TileMatrix {
  id: string
  scaleDenominator: number
  /** Top left corner, x then y (URN axis order already undone). */
  topLeft: [number, number]
  tileWidth: number
  tileHeight: number
  matrixWidth: number
  matrixHeight: number
}
export interface TileMatrixSet { id: string, crs: string, matrices: TileMatrix[] }
export interface WmtsLayer {
  name: string
  title?: string
  abstract?: string
  latLonBbox?: [number, number, number, number]
  styles: string[]
  defaultStyle: string
  formats: string[]
  /** Links to matrix sets, with the matrices' row and column limits when given. */
  matrixSets: Array<{ id: string, limits: Map<string, { minRow: number, maxRow: number, minCol: number, maxCol: number }> }>
  /** resourceType tile templates by format. */
  templates: Map<string, string>
}
export interface WmtsCapabilities { layers: WmtsLayer[], matrixSets: Map<string, TileMatrixSet>, getTileKvp?: string }

/** Metres per unit of a CRS: GeoWebCache's and the WMTS standard's 0.28 mm pixel with degrees on the WGS84 sphere. */
const DEGREE = 2 * Math.PI * 6378137 / 360
const PIXEL = 0.00028

/** EPSG:<n> of a CRS name (URN, OGC URL or EPSG:n); CRS84 is EPSG:4326; the web mercator aliases are EPSG:3857. */
export function crsCode (name: string): string | undefined {
  const s = name.trim()
  if (/CRS:?84$/i.test(s)) return 'EPSG:4326'
  const m = /EPSG(?::[\d.]*)?:+(\d+)$/i.exec(s) ?? /\/EPSG\/[\d.]+\/(\d+)$/i.exec(s)
  if (!m) return undefined
  return ['900913', '3857', '102100', '102113', '3785'].includes(m[1]) ? 'EPSG:3857' : `EPSG:${m[1]}`
}
const isGeographic = (code: string) => code === 'EPSG:4326' || epsgEntry(Number(code.split(':')[1]))?.geographic === true
const nums = (s: string | undefined) => (s ?? '').trim().split(/\s+/).map(Number)

function matrixSetOf (node: XmlValue): TileMatrixSet | undefined {
  const id = childText(node, 'Identifier')
  const crsName = childText(node, 'SupportedCRS')
  const crs = crsName ? crsCode(crsName) : undefined
  if (!id || !crs) return undefined
  // EPSG's geographic systems (and a URN or EPSG name) are latitude first; CRS84 is longitude first.
  const swap = isGeographic(crs) && !/CRS:?84$/i.test(crsName ?? '')
  const matrices: TileMatrix[] = []
  for (const m of children(node, 'TileMatrix')) {
    const corner = nums(childText(m, 'TopLeftCorner'))
    const tm: TileMatrix = {
      id: childText(m, 'Identifier') ?? '',
      scaleDenominator: Number(childText(m, 'ScaleDenominator')),
      topLeft: swap ? [corner[1], corner[0]] : [corner[0], corner[1]],
      tileWidth: Number(childText(m, 'TileWidth')),
      tileHeight: Number(childText(m, 'TileHeight')),
      matrixWidth: Number(childText(m, 'MatrixWidth')),
      matrixHeight: Number(childText(m, 'MatrixHeight'))
    }
    const good = tm.id !== '' && [tm.scaleDenominator, ...tm.topLeft, tm.tileWidth, tm.tileHeight, tm.matrixWidth, tm.matrixHeight].every(Number.isFinite) &&
      tm.scaleDenominator > 0 && tm.tileWidth > 0 && tm.tileHeight > 0 && tm.tileWidth <= 4096 && tm.tileHeight <= 4096 && tm.matrixWidth > 0 && tm.matrixHeight > 0
    if (good) matrices.push(tm)
  }
  return { id, crs, matrices }
}

/** The layers and matrix sets of a WMTS 1.0.0 capabilities document. */
export async function wmtsCapabilities (xml: string): Promise<WmtsCapabilities> {
  const [, root] = rootOf(await parseXml(xml))
  const contents = child(root, 'Contents')
  const matrixSets = new Map<string, TileMatrixSet>()
  for (const n of children(contents, 'TileMatrixSet')) { const s = matrixSetOf(n); if (s) matrixSets.set(s.id, s) }
  const layers: WmtsLayer[] = []
  for (const l of children(contents, 'Layer')) {
    const name = childText(l, 'Identifier')
    if (!name) continue
    const wgs = child(l, 'WGS84BoundingBox')
    const b = [...nums(childText(wgs, 'LowerCorner')), ...nums(childText(wgs, 'UpperCorner'))]
    const styles = children(l, 'Style').map((s) => ({ id: childText(s, 'Identifier') ?? '', isDefault: attr(s, 'isDefault') === 'true' }))
    const layer: WmtsLayer = {
      name,
      title: childText(l, 'Title'),
      abstract: childText(l, 'Abstract'),
      ...(b.length === 4 && b.every(Number.isFinite) ? { latLonBbox: b as [number, number, number, number] } : {}),
      styles: styles.map((s) => s.id),
      defaultStyle: (styles.find((s) => s.isDefault) ?? styles[0])?.id ?? '',
      formats: children(l, 'Format').map((f) => text(f) ?? '').filter((f) => f !== ''),
      matrixSets: children(l, 'TileMatrixSetLink').map((link) => {
        const limits = new Map<string, { minRow: number, maxRow: number, minCol: number, maxCol: number }>()
        for (const tl of children(child(link, 'TileMatrixSetLimits'), 'TileMatrixLimits')) {
          const v = { minRow: Number(childText(tl, 'MinTileRow')), maxRow: Number(childText(tl, 'MaxTileRow')), minCol: Number(childText(tl, 'MinTileCol')), maxCol: Number(childText(tl, 'MaxTileCol')) }
          const m = childText(tl, 'TileMatrix')
          if (m && Object.values(v).every(Number.isInteger)) limits.set(m, v)
        }
        return { id: childText(link, 'TileMatrixSet') ?? '', limits }
      }),
      templates: new Map()
    }
    for (const r of children(l, 'ResourceURL')) {
      const f = attr(r, 'format')
      const t = attr(r, 'template')
      if (f && t && (attr(r, 'resourceType') ?? 'tile') === 'tile') layer.templates.set(f, t)
    }
    layers.push(layer)
  }
  // GetTile's KVP address (Constraint GetEncoding KVP, or no constraint).
  let getTileKvp: string | undefined
  for (const op of children(child(root, 'OperationsMetadata'), 'Operation')) {
    if (attr(op, 'name') !== 'GetTile') continue
    for (const g of children(child(child(op, 'DCP'), 'HTTP'), 'Get')) {
      const enc = children(child(g, 'Constraint'), 'AllowedValues').flatMap((a) => children(a, 'Value').map((v) => text(v)))
      const href = attr(g, 'xlink:href') ?? attr(g, 'href')
      if (href && (enc.length === 0 || enc.includes('KVP'))) { getTileKvp ??= href; break }
    }
  }
  return { layers, matrixSets, ...(getTileKvp ? { getTileKvp } : {}) }
}

/** Pixel size (CRS units) of a matrix. */
export const resolutionOf = (m: TileMatrix, crs: string) => m.scaleDenominator * PIXEL / (isGeographic(crs) ? DEGREE : 1)

/** The matrix set of the layer in the CRS (undefined: the layer has none in it). */
export function matrixSetFor (caps: WmtsCapabilities, layer: WmtsLayer, crs: string): { set: TileMatrixSet, link: WmtsLayer['matrixSets'][number] } | undefined {
  const want = crsCode(crs)
  for (const link of layer.matrixSets) {
    const set = caps.matrixSets.get(link.id)
    if (set && set.crs === want && set.matrices.length > 0) return { set, link }
  }
  return undefined
}

/** The matrix to draw a picture of pixel size `res` from: the coarsest whose pixels are not larger, else the finest. */
export function bestMatrix (set: TileMatrixSet, res: number): TileMatrix {
  const sorted = [...set.matrices].sort((a, b) => b.scaleDenominator - a.scaleDenominator)
  const fine = sorted.filter((m) => resolutionOf(m, set.crs) <= res * (1 + 1e-9))
  return fine[0] ?? sorted[sorted.length - 1]
}

/** The URL of one tile: the layer's ResourceURL template for the format, else GetTile KVP. */
export function tileUrl (caps: WmtsCapabilities, fallbackBase: string, layer: WmtsLayer, set: string, matrix: string, row: number, col: number, format: string, style: string): string {
  const template = layer.templates.get(format)
  if (template !== undefined && !(style === '' && /\{style\}/i.test(template))) {
    const values: Record<string, string> = { style, tilematrixset: set, tilematrix: matrix, tilerow: String(row), tilecol: String(col) }
    return template.replace(/\{(style|TileMatrixSet|TileMatrix|TileRow|TileCol)\}/gi, (_, k: string) => encodeURIComponent(values[k.toLowerCase()]))
  }
  const url = new URL(caps.getTileKvp ?? fallbackBase)
  const params: Record<string, string> = { SERVICE: 'WMTS', REQUEST: 'GetTile', VERSION: '1.0.0', LAYER: layer.name, STYLE: style, TILEMATRIXSET: set, TILEMATRIX: matrix, TILEROW: String(row), TILECOL: String(col), FORMAT: format }
  const ours = new Set(Object.keys(params))
  for (const k of [...url.searchParams.keys()]) if (ours.has(k.toUpperCase())) url.searchParams.delete(k)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.toString()
}

export interface TilePlan {
  matrix: TileMatrix
  res: number
  /** Tiles to fetch (inside the matrix and the layer's limits). */
  tiles: Array<{ row: number, col: number }>
  col0: number
  row0: number
  cols: number
  rows: number
}

/** The covering tiles of a box in a matrix (the rows and columns of the box, clipped to the matrix and its limits). */
export function planTiles (set: TileMatrixSet, link: WmtsLayer['matrixSets'][number], bbox: [number, number, number, number], width: number, height: number): TilePlan {
  const res = Math.min((bbox[2] - bbox[0]) / width, (bbox[3] - bbox[1]) / height)
  const matrix = bestMatrix(set, res)
  const r = resolutionOf(matrix, set.crs)
  const spanX = matrix.tileWidth * r
  const spanY = matrix.tileHeight * r
  const eps = 1e-9
  const col0 = Math.floor((bbox[0] - matrix.topLeft[0]) / spanX + eps)
  const col1 = Math.ceil((bbox[2] - matrix.topLeft[0]) / spanX - eps) - 1
  const row0 = Math.floor((matrix.topLeft[1] - bbox[3]) / spanY + eps)
  const row1 = Math.ceil((matrix.topLeft[1] - bbox[1]) / spanY - eps) - 1
  const lim = link.limits.get(matrix.id)
  const tiles: Array<{ row: number, col: number }> = []
  for (let row = Math.max(row0, 0, lim?.minRow ?? 0); row <= Math.min(row1, matrix.matrixHeight - 1, lim?.maxRow ?? Infinity); row++) {
    for (let col = Math.max(col0, 0, lim?.minCol ?? 0); col <= Math.min(col1, matrix.matrixWidth - 1, lim?.maxCol ?? Infinity); col++) tiles.push({ row, col })
  }
  return { matrix, res: r, tiles, col0, row0, cols: col1 - col0 + 1, rows: row1 - row0 + 1 }
}
