// The EPSG code of a shapefile's .prj (WKT 1, OGC or ESRI flavour): its top-level AUTHORITY["EPSG",n]
// when it has one; a geographic CRS on the WGS 84 datum is 4326; ESRI's Web Mercator names are 3857;
// else the CRS's name compared with the names of the EPSG registry (services/render/epsg.ts), spelt
// alike (case, punctuation and `19` of datum years ignored: WGS_1984_UTM_Zone_33N is "WGS 84 / UTM
// zone 33N"). A .prj named nothing this finds: 0 (no native CRS; the feature type then needs a
// declared srs with FORCE_DECLARED). A file that is not WKT is refused, naming it.
import { InvalidDataStore } from '../errors.js'
import { epsgEntry, loadEpsgCodes } from '../render/epsg.js'

const WEB_MERCATOR = /^(WGS_1984_Web_Mercator(_Auxiliary_Sphere)?|Popular Visualisation CRS \/ Mercator|Google Maps Global Mercator|WGS 84 \/ Pseudo-Mercator)$/i

const spelt = (name: string) => name.toLowerCase().replace(/^(gcs|pcs)_/, '').replace(/([a-z])_?19([0-9]{2})/g, '$1$2').replace(/[^a-z0-9]/g, '')

let byName: Promise<Map<string, number>> | undefined

/** The registry's codes by spelt name (the first, lowest code wins). */
function registryNames (): Promise<Map<string, number>> {
  byName ??= (async () => {
    const out = new Map<string, number>()
    for (const code of await loadEpsgCodes()) {
      const e = epsgEntry(code)
      if (!e) continue
      const k = spelt(e.name)
      if (!out.has(k)) out.set(k, code)
    }
    return out
  })()
  return byName
}

const TOP = /^(PROJCS|GEOGCS|PROJCRS|GEOGCRS|GEODCRS|COMPD_CS|COMPOUNDCRS)\s*\[\s*"([^"]*)"/i

export async function sridOfPrj (text: string, file: string): Promise<number> {
  const wkt = text.replace(/^\uFEFF/, '').trim()
  if (!TOP.test(wkt) || !wkt.endsWith(']')) throw InvalidDataStore(`${JSON.stringify(file)} is not a WKT coordinate reference system (it should start with PROJCS[ or GEOGCS[)`)
  return await sridOfWkt(wkt)
}

/** The EPSG code of a CRS's WKT as above (0: none found); the text is known to be a CRS's WKT. */
export async function sridOfWkt (text: string): Promise<number> {
  const wkt = text.replace(/^\uFEFF/, '').trim()
  const top = TOP.exec(wkt)
  if (!top) return 0
  // The top-level authority is the last element before the closing bracket.
  const auth = /(?:AUTHORITY|ID)\s*\[\s*"EPSG"\s*,\s*"?([0-9]+)"?\s*\]\s*\]$/i.exec(wkt)
  if (auth) return Number(auth[1])
  const kind = top[1].toUpperCase()
  const name = top[2]
  if (kind.startsWith('GEOG')) {
    if (/WGS[ _]?(19)?84/i.test(name) || /DATUM\s*\[\s*"(D_)?WGS[ _]?(19)?84"/i.test(wkt)) return 4326
  }
  if (WEB_MERCATOR.test(name)) return 3857
  // The commonest projected names without reading the registry: UTM zones on WGS 84 and NAD83.
  const utm = /^(WGS[ _]?(?:19)?84|NAD[ _]?(?:19)?83)[ _/]+UTM[ _]zone[ _]([0-9]{1,2})([NS])$/i.exec(name)
  if (utm && Number(utm[2]) >= 1 && Number(utm[2]) <= 60) {
    const zone = Number(utm[2])
    if (/^WGS/i.test(utm[1])) return (utm[3].toUpperCase() === 'N' ? 32600 : 32700) + zone
    if (utm[3].toUpperCase() === 'N' && zone <= 23) return 26900 + zone
  }
  return (await registryNames()).get(spelt(name)) ?? 0
}
