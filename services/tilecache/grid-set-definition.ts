// A custom grid set as GeoWebCache's REST takes it (XMLGridSet: name, description, srs/number,
// extent/coords, alignTopLeft, resolutions or scaleDenominators, metersPerUnit, pixelSize,
// scaleNames, tileHeight, tileWidth, yCoordinateFirst), in XML (arrays as <double>/<string>
// children) or JSON (the same, or plain arrays), validated whole: every bad field is a 400 naming it
// (GWC answers 500 or builds a grid set that cannot work). The definition is what the store keeps;
// gridSetOf builds the GridSet with GridSetFactory's rules (resolution = scale * pixelSize /
// metersPerUnit, metersPerUnit from the CRS's unit when absent).
import { GridSetInvalid } from '../errors.js'
import { epsgEntry } from '../render/epsg.js'
import { isSupportedCrs } from '../render/crs.js'
import { EPSG4326_METERS_PER_UNIT, PIXEL_SIZE, tilesHigh, tilesWide, type BBox, type GridSet } from './grid-sets.js'

export interface GridSetDefinition {
  name: string
  description?: string
  srs: number
  extent: BBox
  alignTopLeft: boolean
  resolutions?: number[]
  scaleDenominators?: number[]
  metersPerUnit?: number
  pixelSize: number
  scaleNames?: string[]
  tileWidth: number
  tileHeight: number
  yCoordinateFirst: boolean
}

const FIELDS = new Set(['name', 'description', 'srs', 'extent', 'alignTopLeft', 'resolutions', 'scaleDenominators', 'metersPerUnit', 'pixelSize', 'scaleNames', 'tileHeight', 'tileWidth', 'yCoordinateFirst'])
/** Names become a folder of the blob store (':' and letters, digits, '.', '_', '-'). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/
const MAX_LEVELS = 64
/** Tiles along one axis at any level: GWC counts them in a long; the blob store's folders and the
 *  quota's pages in 32-bit integers. */
const MAX_TILES_PER_AXIS = 2 ** 31 - 1

const bad = (field: string, value: unknown, why: string) => GridSetInvalid(field, JSON.stringify(value)?.slice(0, 80) ?? String(value), why)

function scalar (v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim()
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return undefined
}

function num (field: string, v: unknown): number {
  const s = scalar(v)
  const n = s === undefined || s === '' ? NaN : Number(s)
  if (!Number.isFinite(n)) throw bad(field, v, 'a finite number is expected')
  return n
}

function positive (field: string, v: unknown): number {
  const n = num(field, v)
  if (n <= 0) throw bad(field, v, 'a positive number is expected')
  return n
}

function bool (field: string, v: unknown): boolean {
  const s = scalar(v)
  if (s !== 'true' && s !== 'false') throw bad(field, v, 'true or false is expected')
  return s === 'true'
}

function int (field: string, v: unknown, min: number, max: number): number {
  const s = scalar(v)
  if (s === undefined || !/^-?\d{1,10}$/.test(s)) throw bad(field, v, 'a whole number is expected')
  const n = Number(s)
  if (n < min || n > max) throw bad(field, v, `a whole number from ${min} to ${max} is expected`)
  return n
}

/** A list as XML gives it (<coords><double>1</double>...</coords>: {double: [...]}, or one value
 *  alone) or JSON does (a plain array, or the same {double: [...]}). */
function list (field: string, v: unknown, item: string): unknown[] {
  if (Array.isArray(v)) return v
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v)
    if (keys.length === 1 && keys[0] === item) {
      const inner = (v as Record<string, unknown>)[item]
      return Array.isArray(inner) ? inner : [inner]
    }
    if (keys.length === 0) return []
  }
  if (v === '') return []
  throw bad(field, v, `a list of <${item}> values is expected`)
}

function text (field: string, v: unknown, max: number): string {
  if (typeof v !== 'string' && typeof v !== 'number') throw bad(field, v, 'text is expected')
  const s = String(v)
  if (s.length > max) throw bad(field, s, `at most ${max} characters`)
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(s)) throw bad(field, s, 'control characters are not allowed')
  return s
}

function levels (field: string, v: unknown): number[] {
  const values = list(field, v, 'double').map((d, i) => positive(`${field}[${i}]`, d))
  if (values.length === 0) throw bad(field, v, 'at least one level is expected')
  if (values.length > MAX_LEVELS) throw bad(field, values.length, `at most ${MAX_LEVELS} levels`)
  for (let i = 1; i < values.length; i++) {
    if (!(values[i] < values[i - 1])) throw bad(`${field}[${i}]`, values[i], `levels go from the coarsest to the finest: each must be smaller than the one before (${values[i - 1]})`)
  }
  return values
}

/** The EPSG code of `srs` (<srs><number>27700</number></srs>, {"srs":{"number":27700}}, or "EPSG:27700"). */
function srsNumber (v: unknown): number {
  let raw: unknown = v
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v)
    if (keys.length !== 1 || keys[0] !== 'number') throw bad('srs', v, 'expected <srs><number>EPSG code</number></srs>')
    raw = (v as Record<string, unknown>).number
  }
  const s = scalar(raw)
  const m = s === undefined ? null : /^(?:EPSG:)?(\d{1,9})$/i.exec(s)
  if (!m) throw bad('srs/number', raw, 'an EPSG code is expected')
  const n = Number(m[1])
  if (!isSupportedCrs(`EPSG:${n}`)) throw bad('srs/number', raw, 'not a horizontal coordinate system of the EPSG registry')
  return n
}

/** metersPerUnit from the CRS's unit, as GWC does when the body has none. */
function crsMetersPerUnit (srs: number): number | undefined {
  if (srs === 900913 || srs === 3857) return 1
  const unit = epsgEntry(srs)?.unit ?? ''
  if (/^degree/.test(unit)) return EPSG4326_METERS_PER_UNIT
  if (/^metre$/.test(unit)) return 1
  if (/^US survey foot$/.test(unit)) return 1200 / 3937
  if (/^foot$/.test(unit)) return 0.3048
  if (/^kilometre$/.test(unit)) return 1000
  return undefined
}

/**
 * Reads a grid set body (the element or key inside the root `gridSet`). `name` is the resource's
 * name: a body naming another is refused, as is a name that cannot be a folder of the blob store.
 */
export function parseGridSet (name: string, body: Record<string, unknown>): GridSetDefinition {
  for (const k of Object.keys(body)) if (!FIELDS.has(k)) throw bad(k, body[k], 'not a field of a grid set')
  if (!NAME.test(name)) throw bad('name', name, 'a grid set name starts with a letter or digit and holds letters, digits, ":", ".", "_" and "-" (at most 100)')
  // The blob store keeps a grid set's tiles in a folder named with its first ':' as '_', and reads
  // the folder's name back the same way: a '_' before any ':' would come back as another name.
  if (name.replace(':', '_').replace('_', ':') !== name) throw bad('name', name, "'_' may only follow a ':' in a grid set name (its tiles' folder is the name with the first ':' as '_')")
  if (body.name !== undefined && scalar(body.name) !== name) throw bad('name', body.name, `the body names another grid set than the URL (${name})`)
  const required = (field: string) => {
    if (body[field] === undefined || body[field] === null) throw bad(field, null, 'required')
    return body[field]
  }
  const srs = srsNumber(required('srs'))
  const extentBody = required('extent')
  const coordsRaw = extentBody !== null && typeof extentBody === 'object' && !Array.isArray(extentBody) && Object.keys(extentBody).length === 1 && 'coords' in extentBody
    ? (extentBody as Record<string, unknown>).coords
    : Array.isArray(extentBody) ? extentBody : undefined
  if (coordsRaw === undefined) throw bad('extent', extentBody, 'expected <extent><coords> of four <double> (minx, miny, maxx, maxy)')
  const coords = list('extent/coords', coordsRaw, 'double').map((d, i) => num(`extent/coords[${i}]`, d))
  if (coords.length !== 4) throw bad('extent/coords', coords, 'four numbers are expected: minx, miny, maxx, maxy')
  if (!(coords[0] < coords[2]) || !(coords[1] < coords[3])) throw bad('extent/coords', coords, 'the minimum must be below the maximum on both axes')
  const hasRes = body.resolutions !== undefined && body.resolutions !== ''
  const hasScales = body.scaleDenominators !== undefined && body.scaleDenominators !== ''
  if (hasRes === hasScales) throw bad(hasRes ? 'scaleDenominators' : 'resolutions', null, 'give either resolutions or scaleDenominators (one of the two)')
  const def: GridSetDefinition = {
    name,
    srs,
    extent: coords as BBox,
    alignTopLeft: body.alignTopLeft === undefined ? false : bool('alignTopLeft', body.alignTopLeft),
    pixelSize: body.pixelSize === undefined ? PIXEL_SIZE : positive('pixelSize', body.pixelSize),
    tileWidth: body.tileWidth === undefined ? 256 : int('tileWidth', body.tileWidth, 16, 2048),
    tileHeight: body.tileHeight === undefined ? 256 : int('tileHeight', body.tileHeight, 16, 2048),
    yCoordinateFirst: body.yCoordinateFirst === undefined ? false : bool('yCoordinateFirst', body.yCoordinateFirst)
  }
  if (body.description !== undefined && body.description !== '') def.description = text('description', body.description, 4000)
  if (hasRes) def.resolutions = levels('resolutions', body.resolutions)
  else def.scaleDenominators = levels('scaleDenominators', body.scaleDenominators)
  if (body.metersPerUnit !== undefined) def.metersPerUnit = positive('metersPerUnit', body.metersPerUnit)
  else if (crsMetersPerUnit(srs) === undefined) throw bad('metersPerUnit', null, `required: the unit of EPSG:${srs} (${epsgEntry(srs)?.unit ?? 'unknown'}) has no length in metres mapwarden knows`)
  const n = (def.resolutions ?? def.scaleDenominators)!.length
  if (body.scaleNames !== undefined && body.scaleNames !== '') {
    const names = list('scaleNames', body.scaleNames, 'string').map((v, i) => text(`scaleNames[${i}]`, v, 200))
    if (names.length !== n) throw bad('scaleNames', names.length, `one name per level is expected (${n})`)
    if (new Set(names).size !== names.length) throw bad('scaleNames', names, 'each level needs a name of its own')
    def.scaleNames = names
  }
  // Every level must be a grid mapwarden can count and store (see MAX_TILES_PER_AXIS).
  const gs = gridSetOf(def)
  for (let z = 0; z < gs.resolutions.length; z++) {
    const w = tilesWide(gs, z)
    const h = tilesHigh(gs, z)
    if (w > MAX_TILES_PER_AXIS || h > MAX_TILES_PER_AXIS) throw bad(hasRes ? `resolutions[${z}]` : `scaleDenominators[${z}]`, hasRes ? gs.resolutions[z] : gs.scaleDenominators[z], `level ${z} would be ${w} x ${h} tiles; at most ${MAX_TILES_PER_AXIS} along each axis`)
  }
  return def
}

/** The grid set a definition describes (GridSetFactory.createGridSet). */
export function gridSetOf (def: GridSetDefinition): GridSet {
  const mpu = def.metersPerUnit ?? crsMetersPerUnit(def.srs) ?? 1
  const resolutions = def.resolutions ?? def.scaleDenominators!.map((s) => s * def.pixelSize / mpu)
  const scaleDenominators = def.scaleDenominators ?? def.resolutions!.map((r) => r * mpu / def.pixelSize)
  const srs = def.srs === 3857 ? 'EPSG:900913' : `EPSG:${def.srs}`
  return {
    id: def.name,
    srs,
    srsNumbers: def.srs === 900913 || def.srs === 3857 ? [900913, 3857] : [def.srs],
    extent: [...def.extent],
    resolutions,
    scaleDenominators,
    tileWidth: def.tileWidth,
    tileHeight: def.tileHeight,
    metersPerUnit: mpu,
    yCoordinateFirst: def.yCoordinateFirst,
    alignTopLeft: def.alignTopLeft,
    pixelSize: def.pixelSize,
    ...(def.description !== undefined ? { description: def.description } : {}),
    ...(def.scaleNames ? { scaleNames: def.scaleNames } : {}),
    builtIn: false
  }
}
