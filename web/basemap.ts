// The basemap: Natural Earth country outlines at 1:110m (the world-atlas package), bundled and
// drawn as vectors under the tiles (the tiles keep their own canvas), so the map needs no tile
// server and works offline.
import VectorLayer from 'ol/layer/Vector.js'
import VectorSource from 'ol/source/Vector.js'
import GeoJSON from 'ol/format/GeoJSON.js'
import Style from 'ol/style/Style.js'
import Stroke from 'ol/style/Stroke.js'
import Fill from 'ol/style/Fill.js'
import { feature } from 'topojson-client'
import type { Topology, GeometryCollection } from 'topojson-specification'
import countries from 'world-atlas/countries-110m.json'

export const basemap = new VectorLayer({
  className: 'basemap',
  style: new Style({ fill: new Fill({ color: '#f4f1ea' }), stroke: new Stroke({ color: '#9aa5b1', width: 0.8 }) })
})
const outlines = planar(feature(countries as unknown as Topology, (countries as unknown as Topology).objects.countries as GeometryCollection))

type Ring = number[][]
/**
 * world-atlas is made for spherical drawing: a ring that crosses the antimeridian jumps from 180 to
 * -180 (Russia's Chukotka, Fiji) and Antarctica's ring goes round the pole. Drawn on a plane those
 * jumps are edges across the whole world: horizontal stripes. Each ring is made continuous (a
 * longitude past 180 goes on past it), a ring round a pole is closed along the pole, and a polygon
 * reaching past ±180 is drawn once more a world away, so both sides of the map show their part.
 */
function planar<G extends { features: Array<{ geometry: unknown }> }> (fc: G): G {
  for (const f of fc.features) {
    const g = f.geometry as { type: string, coordinates: unknown } | null
    if (!g || (g.type !== 'Polygon' && g.type !== 'MultiPolygon')) continue
    const polygons = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates) as Ring[][]
    const out: Ring[][] = []
    for (const polygon of polygons) {
      const rings = polygon.map(continuous)
      out.push(rings)
      const lons = rings.flat().map((p) => p[0])
      if (Math.max(...lons) > 180) out.push(rings.map((r) => r.map(([x, y]) => [x - 360, y])))
      if (Math.min(...lons) < -180) out.push(rings.map((r) => r.map(([x, y]) => [x + 360, y])))
    }
    f.geometry = { type: 'MultiPolygon', coordinates: out }
  }
  return fc
}
function continuous (ring: Ring): Ring {
  const out: Ring = [ring[0].slice()]
  for (let i = 1; i < ring.length; i++) {
    const prev = out[i - 1][0]
    let x = ring[i][0]
    while (x - prev > 180) x -= 360
    while (x - prev < -180) x += 360
    out.push([x, ring[i][1]])
  }
  const first = out[0]
  const last = out[out.length - 1]
  if (Math.abs(last[0] - first[0]) > 180) {
    // Round a pole: along the pole back to the start.
    const pole = out.reduce((sum, p) => sum + p[1], 0) < 0 ? -90 : 90
    out.push([last[0], pole], [first[0], pole], first.slice())
  }
  return out
}

/** The outlines in the view's projection; made again only when the projection changes. */
export function showBasemap (projection: string) {
  if (basemap.get('projection') === projection) return
  basemap.setSource(new VectorSource({ features: new GeoJSON().readFeatures(outlines, { dataProjection: 'EPSG:4326', featureProjection: projection }) }))
  basemap.set('projection', projection)
}
