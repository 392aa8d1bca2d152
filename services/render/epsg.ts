// The EPSG registry, from the npm package epsg-index (one JSON file per code: name, proj4, WKT, area of
// use, unit). Entries are read on first use and cached, so a process (or a render thread) pays only for
// the codes it meets. Pure module, used in the render threads and by every service that takes a code.
import { readdirSync, readFileSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

export interface EpsgEntry {
  code: number
  name: string
  /** proj4 definition, with grids proj4js cannot load replaced (see usableProj4). */
  proj4: string
  /** Geographic (longitude/latitude): EPSG orders these latitude first, as WMS 1.3.0 does. */
  geographic: boolean
  /** Area of use in degrees: [west, south, east, north]. */
  areaOfUse?: [number, number, number, number]
  unit: string
}

interface RawEntry { code: string, kind: string, name: string, proj4?: string, bbox?: number[], unit?: string }

const dir = join(dirname(createRequire(import.meta.url).resolve('epsg-index/package.json')), 's')
const cache = new Map<number, EpsgEntry | null>()
let codes: number[] | undefined

// Kinds a map can be drawn in (2D geographic or projected); vertical, compound, geocentric and
// engineering systems are not horizontal coordinates.
const DRAWABLE = new Set(['CRS-GEOGCRS', 'CRS-PROJCRS'])

// Datums whose EPSG proj4 names a shift grid proj4js does not ship (NTv2 files). Without the grid,
// the EPSG registry's own Helmert transformation for the datum, as GeoTools applies when a grid is
// missing: OSGB36 (EPSG:1314), DHDN (EPSG:1777). Others fall back to the ellipsoid alone.
const HELMERT: Record<string, string> = {
  'OSTN15_NTv2_OSGBtoETRS.gsb': '+towgs84=446.448,-125.157,542.06,0.15,0.247,0.842,-20.489',
  'BETA2007.gsb': '+towgs84=598.1,73.7,418.2,0.202,0.045,-2.455,6.7'
}

function usableProj4 (def: string): string {
  return def.replace(/\+nadgrids=(\S+)/, (all, grids: string) => {
    if (grids === '@null') return all
    return HELMERT[grids] ?? ''
  }).replace(/\s+/g, ' ').trim()
}

/** An entry file's text as the registry's entry, or null when a map cannot use it. */
function parseEntry (code: number, text: string): EpsgEntry | null {
  const raw = JSON.parse(text) as RawEntry
  if (!DRAWABLE.has(raw.kind) || !raw.proj4) return null
  const b = raw.bbox
  return {
    code,
    name: raw.name,
    proj4: usableProj4(raw.proj4),
    geographic: raw.kind === 'CRS-GEOGCRS' || /\+proj=longlat\b/.test(raw.proj4),
    areaOfUse: b?.length === 4 ? [b[1], b[2], b[3], b[0]] : undefined,
    unit: raw.unit ?? ''
  }
}

/** The registry's entry for an EPSG number, or undefined when it has none a map can use. */
export function epsgEntry (code: number): EpsgEntry | undefined {
  if (!Number.isSafeInteger(code) || code <= 0) return undefined
  const hit = cache.get(code)
  if (hit !== undefined) return hit ?? undefined
  let entry: EpsgEntry | null = null
  try {
    entry = parseEntry(code, readFileSync(join(dir, `${code}.json`), 'utf8'))
  } catch { entry = null } // no such file (or a damaged one): not a code we know
  cache.set(code, entry)
  return entry ?? undefined
}

/** Every EPSG number with a drawable entry, ascending: the folder's names, then each entry. */
export function epsgCodes (): number[] {
  codes ??= readdirSync(dir).map(codeOf).filter((c): c is number => c !== undefined)
    .sort((a, b) => a - b).filter((c) => epsgEntry(c) !== undefined)
  return codes
}

const codeOf = (file: string): number | undefined => {
  const m = /^(\d+)\.json$/.exec(file)
  return m ? Number(m[1]) : undefined
}

let loading: Promise<number[]> | undefined
/**
 * epsgCodes() read without holding the event loop (a service's first capabilities document): reading
 * and parsing the 8,000 entry files at once stalled it for about 0.4 s. Every later call is a lookup.
 */
export function loadEpsgCodes (): Promise<number[]> {
  if (codes) return Promise.resolve(codes)
  loading ??= (async () => {
    const all = (await readdir(dir)).map(codeOf).filter((c): c is number => c !== undefined).sort((a, b) => a - b)
    for (const code of all) {
      if (cache.has(code)) continue
      let entry: EpsgEntry | null = null
      try { entry = parseEntry(code, await readFile(join(dir, `${code}.json`), 'utf8')) } catch { entry = null }
      cache.set(code, entry)
    }
    codes = all.filter((c) => cache.get(c) != null)
    return codes
  })().finally(() => { loading = undefined })
  return loading
}

const wkts = new Map<number, string | null>()
/**
 * The registry's WKT 1 of a code (GDAL's spelling, as epsg-index carries it), undefined when it has
 * none. Kept apart from epsgEntry so that the 8,000 entries loadEpsgCodes caches hold no WKT text.
 */
export function epsgWkt (code: number): string | undefined {
  if (epsgEntry(code) === undefined) return undefined
  let wkt = wkts.get(code)
  if (wkt === undefined) {
    try {
      const raw = JSON.parse(readFileSync(join(dir, `${code}.json`), 'utf8')) as { wkt?: unknown }
      wkt = typeof raw.wkt === 'string' && raw.wkt !== '' ? raw.wkt : null
    } catch { wkt = null }
    wkts.set(code, wkt)
  }
  return wkt ?? undefined
}
