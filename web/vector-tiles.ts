// The vector-tile view of the layers panel: a vector layer's or layer group's Mapbox vector tiles
// (application/vnd.mapbox-vector-tile) from the tile cache's WMTS, decoded in the browser by
// OpenLayers (ol/format/MVT, on the pbf package) and drawn in the plain colours of the layer's style
// ({base}/web/legend.json `colours`: fill, stroke and point mark per geometry kind, under the layer's
// read rules). A layer group, or a style whose colours come from images or expressions, is drawn in
// GeoServer's default point, line and polygon colours.
import VectorTileLayer from 'ol/layer/VectorTile.js'
import VectorTileSource from 'ol/source/VectorTile.js'
import MVT from 'ol/format/MVT.js'
import TileGrid from 'ol/tilegrid/TileGrid.js'
import type { Extent } from 'ol/extent.js'
import type { FeatureLike } from 'ol/Feature.js'
import Style from 'ol/style/Style.js'
import Stroke from 'ol/style/Stroke.js'
import Fill from 'ol/style/Fill.js'
import CircleStyle from 'ol/style/Circle.js'
import { BASE, getJson } from './http.js'

export const MVT_FORMAT = 'application/vnd.mapbox-vector-tile'

type Kind = 'point' | 'line' | 'polygon'
interface Colours { geometry?: Kind, fill?: string, stroke?: string, strokeWidth?: number, size?: number }

/** GeoServer's default point, line and polygon styles. */
const DEFAULTS: Record<Kind, Colours> = {
  point: { fill: '#ff0000', size: 6 },
  line: { stroke: '#0000ff', strokeWidth: 1 },
  polygon: { fill: '#aaaaaa', stroke: '#000000', strokeWidth: 1 }
}

function olStyle (kind: Kind, c: Colours): Style {
  const fill = c.fill ? new Fill({ color: c.fill }) : undefined
  const stroke = c.stroke ? new Stroke({ color: c.stroke, width: c.strokeWidth ?? 1 }) : undefined
  if (kind === 'point') return new Style({ image: new CircleStyle({ radius: Math.max(1, (c.size ?? 6) / 2), ...(fill ? { fill } : {}), ...(stroke ? { stroke } : {}) }) })
  return new Style({ ...(kind === 'polygon' && fill ? { fill } : {}), ...(stroke ? { stroke } : {}) })
}

/** The style function of a layer's colours: per feature, its geometry kind's first entry. */
export function styleFunction (colours: Colours[]): (f: FeatureLike) => Style {
  const styles = Object.fromEntries((['point', 'line', 'polygon'] as Kind[]).map((k) => [k, olStyle(k, colours.find((c) => c.geometry === k) ?? DEFAULTS[k])])) as Record<Kind, Style>
  return (f) => {
    const type = f.getGeometry()?.getType() ?? 'Point'
    return styles[/Polygon/.test(type) ? 'polygon' : /LineString/.test(type) ? 'line' : 'point']
  }
}

export const vectorTileLayer = new VectorTileLayer({ className: 'mvt', renderMode: 'hybrid' })

export interface GridSetLike { id: string, extent: Extent, resolutions: number[], tileSize: number }

/** The layer's vector tiles in a grid set, styled from `style` (its colours asked of legend.json). */
export async function showVectorTiles (layer: string, style: string, gs: GridSetLike, coverage: Extent): Promise<void> {
  let colours: Colours[] = []
  try {
    const { legend } = await getJson<{ legend: { colours?: Colours[] } }>(`${BASE}/web/legend.json?layer=${encodeURIComponent(layer)}&style=${encodeURIComponent(style)}`)
    colours = legend.colours ?? []
  } catch { /* a group, or no style: the defaults */ }
  vectorTileLayer.setStyle(styleFunction(colours))
  const tileGrid = new TileGrid({ origin: [gs.extent[0], gs.extent[3]], extent: coverage, resolutions: gs.resolutions, tileSize: gs.tileSize })
  const params = (z: number, x: number, y: number) => new URLSearchParams({
    SERVICE: 'WMTS', REQUEST: 'GetTile', VERSION: '1.0.0', LAYER: layer, STYLE: style, TILEMATRIXSET: gs.id,
    TILEMATRIX: `${gs.id}:${z}`, TILEROW: String(y), TILECOL: String(x), FORMAT: MVT_FORMAT
  })
  vectorTileLayer.setSource(new VectorTileSource({
    format: new MVT(),
    projection: gs.id,
    tileGrid,
    tileUrlFunction: (c) => `${BASE}/gwc/service/wmts?${params(c[0], c[1], c[2]).toString()}`,
    wrapX: false
  }))
}

export function hideVectorTiles (): void { vectorTileLayer.setSource(null) }
