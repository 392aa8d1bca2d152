// The spatial predicates of the filter tree evaluated in JS, with jsts (the JavaScript port of JTS,
// where GeoTools' predicates come from): for a source without SQL (a shapefile), for a GeoPackage
// (a function of its connection, after the R-tree or envelope prefilter) and for an SLD rule.
// Intersects, Within, Contains, Disjoint, Touches, Overlaps, Crosses and Equals are the DE-9IM
// predicates (Equals is JTS' topological equality, as GeoTools' and PostGIS' ST_Equals); DWithin and
// Beyond compare the distance between the geometries with the filter's (in the source CRS's units).
import GeometryFactory from 'jsts/org/locationtech/jts/geom/GeometryFactory.js'
import GeoJSONReader from 'jsts/org/locationtech/jts/io/GeoJSONReader.js'
import 'jsts/org/locationtech/jts/monkey.js'
import { isGeographic, METRES_PER_DEGREE, normalizeCrs, transformBbox } from '../render/crs.js'
import { envelopeOf, reprojector, type Geo } from '../wfs/geometry.js'
import type { Envelope, Filter, SpatialFilter } from './tree.js'

const reader = new GeoJSONReader(new GeometryFactory())

/** A parsed geometry, opaque outside this module. */
export interface JtsGeometry { readonly jts: true }

export function toJts (g: Geo): JtsGeometry {
  return reader.read(g) as unknown as JtsGeometry
}

/** Whether the feature's geometry `a` stands in the node's relation to its literal `b`; null
 *  (unknown: not a match) when JTS cannot relate them (a TopologyException on an invalid geometry),
 *  where PostGIS would fail the whole query. */
export function spatialMatch (op: SpatialFilter['op'], a: JtsGeometry, b: JtsGeometry, distance = 0): boolean | null {
  try { return relate(op, a, b, distance) } catch { return null }
}

function relate (op: SpatialFilter['op'], a: JtsGeometry, b: JtsGeometry, distance: number): boolean {
  const x = a as any
  switch (op) {
    case 'intersects': return x.intersects(b)
    case 'within': return x.within(b)
    case 'contains': return x.contains(b)
    case 'disjoint': return x.disjoint(b)
    case 'touches': return x.touches(b)
    case 'overlaps': return x.overlaps(b)
    case 'crosses': return x.crosses(b)
    case 'equals': return x.equalsTopo(b)
    case 'dwithin': return x.isWithinDistance(b, distance)
    case 'beyond': return !x.isWithinDistance(b, distance)
  }
}

/** The envelope a feature must meet to match the node, for an index prefilter: undefined when
 *  features far from the literal can match (Disjoint, Beyond). */
export function prefilterEnvelope (n: SpatialFilter, env: Envelope): Envelope | undefined {
  if (n.op === 'disjoint' || n.op === 'beyond') return undefined
  const d = n.op === 'dwithin' ? n.distance : 0
  return [env[0] - d, env[1] - d, env[2] + d, env[3] + d]
}

/** Metres per degree as GeoTools converts a distance for a geographic CRS (the equator's). */
const METRES: Record<string, number> = { m: 1, meter: 1, meters: 1, metre: 1, metres: 1, km: 1000, kilometer: 1000, kilometers: 1000, ft: 0.3048, feet: 0.3048, foot: 0.3048, mi: 1609.344, mile: 1609.344, miles: 1609.344, 'statute miles': 1609.344, nm: 1852, 'nautical miles': 1852, 9001: 1 }
const DEGREES = new Set(['deg', 'degree', 'degrees', 'urn:ogc:def:uom:epsg::9102'])

/**
 * A DWithin/Beyond distance in the units of the source's CRS: a length unit (m, km, ft, mi, nm) is
 * converted to metres, and for a geographic CRS to degrees at the equator's metres per degree, as
 * GeoTools does; degrees on a geographic CRS as written; no unit, or one we do not know, is taken in
 * the CRS's own units, as GeoServer's stores do.
 */
export function distanceInCrsUnits (d: number, unit: string | undefined, crs: string): number {
  const raw = (unit ?? '').trim().toLowerCase()
  const u = DEGREES.has(raw) ? 'deg' : raw.replace(/^.*[#/:]/, '')
  const geographic = isGeographic(normalizeCrs(crs))
  if (u in METRES) return geographic ? d * METRES[u] / METRES_PER_DEGREE : d * METRES[u]
  if (DEGREES.has(u) && !geographic) return d * METRES_PER_DEGREE
  return d
}

/** An envelope as a polygon, corners counter-clockwise from the lower left. */
export function envelopePolygon ([x0, y0, x1, y1]: Envelope): Geo {
  return { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] }
}

/**
 * An SLD rule's filter with its spatial literals taken to the layer's CRS (`crs`, with the map's
 * proj4 definitions): a literal without srsName is already in it (GeoServer reads it in the
 * layer's), a BBOX's envelope becomes the envelope of its transform (GeoTools' ReferencedEnvelope
 * transform), another geometry has each position transformed; a distance's unit is converted as a
 * WFS filter's is. The tree is returned as is when nothing in it waits for a CRS.
 */
export function inCrs (f: Filter, crs: string, defs?: Record<string, string>): Filter {
  switch (f.k) {
    case 'and': case 'or': { const a = inCrs(f.a, crs, defs); const b = inCrs(f.b, crs, defs); return a === f.a && b === f.b ? f : { k: f.k, a, b } }
    case 'not': { const a = inCrs(f.a, crs, defs); return a === f.a ? f : { k: 'not', a } }
    case 'spatial': {
      if (!f.unresolved) return f
      const { crs: from, unit, box } = f.unresolved
      let geo = f.geo
      if (from !== undefined && normalizeCrs(from) !== normalizeCrs(crs)) {
        if (box) {
          const e = envelopeOf(geo)
          geo = envelopePolygon(e ? transformBbox(e, from, crs, defs) : [NaN, NaN, NaN, NaN])
        } else geo = reprojector(from, crs, defs)(geo)
      }
      // A literal that cannot be taken to the layer's CRS meets no feature (unknown, never a match).
      const e = envelopeOf(geo)
      if (!e || !e.every(Number.isFinite)) return { k: 'const', v: false }
      const out: SpatialFilter = { k: 'spatial', op: f.op, name: f.name, geo, distance: f.op === 'dwithin' || f.op === 'beyond' ? distanceInCrsUnits(f.distance, unit, crs) : f.distance }
      return out
    }
    default: return f
  }
}
