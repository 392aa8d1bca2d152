// The nativeCRS of a featureType body. Clients send back what GET shows (GeoServer's WKT, in XML as
// text with class="projected", in JSON as {"@class": "projected", "$": "PROJCS[...]"} or a string),
// or `EPSG:<code>`. GeoServer takes whatever is sent as the native CRS, even one the data contradicts;
// here (rule 3 of DECISIONS.md) a native CRS follows the data where the data declares one: the same
// CRS is accepted and changes nothing, another is a 400 naming nativeCRS (declare another CRS with
// srs and FORCE_DECLARED). Where the data declares none (an SRID of 0, a shapefile without .prj) the
// body's is applied, as GeoServer does: an EPSG code the registry knows, or a WKT kept as sent.
import { InvalidFeatureType } from '../errors.js'
import { epsgEntry } from '../render/epsg.js'
import { authorityCode, parseWkt } from './crs-wkt.js'
import { sridOfWkt } from './prj.js'
import type { FeatureTypeConfig } from './store.js'

const MAX_WKT = 65536
const shown = (v: string) => JSON.stringify(v.length > 64 ? v.slice(0, 64) + '...' : v)
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const squeeze = (s: string) => s.replace(/\s+/g, '')

/** The text of a nativeCRS value in either wire form; undefined when not sent. */
function textOf (v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (isObject(v)) {
    const extra = Object.keys(v).find((k) => k !== '$' && k !== '@class')
    if (extra !== undefined) throw InvalidFeatureType(`nativeCRS holds the CRS as text (with @class), not ${shown(extra)}`)
    return textOf(v.$)
  }
  if (typeof v !== 'string') throw InvalidFeatureType('nativeCRS must be WKT or EPSG:<code>')
  if (v.length > MAX_WKT) throw InvalidFeatureType(`nativeCRS is longer than ${MAX_WKT} characters`)
  return v.trim()
}

type CrsFields = Pick<FeatureTypeConfig, 'nativeCRS' | 'nativeWkt' | 'nativeCrsFromBody'>

/**
 * The native CRS fields a body asks for, given the current ones (`data`, read from the source or kept
 * from the row); undefined when nothing changes. Throws a 400 naming nativeCRS.
 */
export async function sentNativeCrs (v: unknown, data: CrsFields, typeName: string): Promise<CrsFields | undefined> {
  const text = textOf(v)
  if (text === undefined) return undefined
  let code: number
  let wkt: string | undefined
  const epsg = /^(?:EPSG:|urn:ogc:def:crs:EPSG:[0-9.]*:)([0-9]{1,9})$/i.exec(text)
  if (epsg) code = Number(epsg[1])
  else {
    try {
      const tree = parseWkt(text)
      if (!/^(PROJCS|GEOGCS|PROJCRS|GEOGCRS|GEODCRS|PROJECTEDCRS|GEOGRAPHICCRS)$/i.test(tree.keyword)) throw new Error(`${tree.keyword}[ is not a 2D geographic or projected CRS`)
    } catch (err) {
      throw InvalidFeatureType(`nativeCRS is neither EPSG:<code> nor a WKT coordinate reference system (${(err as Error).message}): ${shown(text)}`)
    }
    code = authorityCode(parseWkt(text)) || await sridOfWkt(text)
    wkt = text
  }
  const current = data.nativeCRS ?? (data.nativeWkt !== undefined ? 'the CRS of its .prj' : undefined)
  const same = data.nativeCRS !== undefined ? code > 0 && data.nativeCRS === `EPSG:${code}` : data.nativeWkt !== undefined && wkt !== undefined && squeeze(wkt) === squeeze(data.nativeWkt)
  if (same) return undefined
  if (current !== undefined && !data.nativeCrsFromBody) {
    throw InvalidFeatureType(`nativeCRS ${code > 0 ? `EPSG:${code}` : shown(text)} is not the CRS the data of ${shown(typeName)} declares (${current}): a native CRS follows the data; declare another CRS with srs and projectionPolicy FORCE_DECLARED`)
  }
  if (code > 0) {
    if (code !== 4326 && epsgEntry(code) === undefined) throw InvalidFeatureType(`nativeCRS EPSG:${code} is not a geographic or projected CRS of the EPSG registry`)
    return { nativeCRS: `EPSG:${code}`, nativeWkt: undefined, nativeCrsFromBody: true }
  }
  return { nativeCRS: undefined, nativeWkt: wkt, nativeCrsFromBody: true }
}
