// The layers panel: the chosen layer on an OpenLayers map, as WMTS KVP tiles from the tile cache,
// as WMS GetMap images from {base}/wms through ImageWMS, or (vector layers and groups) as vector
// tiles drawn in the browser (vector-tiles.ts), in the chosen grid set, style, time and elevation,
// over the basemap; plus the overlay the seed bounds and mosaic footprints are drawn on.
import OlMap from 'ol/Map.js'
import View from 'ol/View.js'
import TileLayer from 'ol/layer/Tile.js'
import ImageLayer from 'ol/layer/Image.js'
import ImageWMS from 'ol/source/ImageWMS.js'
import VectorLayer from 'ol/layer/Vector.js'
import VectorSource from 'ol/source/Vector.js'
import WMTS from 'ol/source/WMTS.js'
import WMTSTileGrid from 'ol/tilegrid/WMTS.js'
import { transformExtent } from 'ol/proj.js'
import { getIntersection, type Extent } from 'ol/extent.js'
import Style from 'ol/style/Style.js'
import Stroke from 'ol/style/Stroke.js'
import Fill from 'ol/style/Fill.js'
import ScaleLine from 'ol/control/ScaleLine.js'
import MousePosition from 'ol/control/MousePosition.js'
import { defaults as defaultControls } from 'ol/control/defaults.js'
import { createStringXY } from 'ol/coordinate.js'
import { BASE } from './http.js'
import { $, fillSelect } from './dom.js'
import { basemap, showBasemap } from './basemap.js'
import { showLegend } from './legend.js'
import { hideVectorTiles, MVT_FORMAT, showVectorTiles, vectorTileLayer } from './vector-tiles.js'

interface GridSetInfo { id: string, extent: Extent, resolutions: number[], maxZoom: number, tileSize: number }
interface LayerInfo {
  name: string, workspace: string, title: string, type: string, bbox?: Extent,
  defaultStyle?: string, styles: string[], formats: string[],
  dimensions: { time?: string[], elevation?: number[] }
}
/** {base}/web/layers.json: the tile layers the user may read and the grid sets they are cut in. */
export interface LayerList { layers: LayerInfo[], gridSets: GridSetInfo[] }

let layers: LayerInfo[] = []
let gridSets: GridSetInfo[] = []
/** Longitude, latitude under the pointer, whatever the grid set, in a readout below the map. */
class Readout extends MousePosition {
  /** Back to the placeholder: the value shown belonged to the view before (another grid set or service). */
  clear () { this.handleMouseOut(new Event('pointerout')) }
}
const readout = new Readout({ projection: 'EPSG:4326', coordinateFormat: createStringXY(4), target: 'mouse-position', placeholder: 'lon, lat: move over the map' })
export const map = new OlMap({
  target: 'map',
  layers: [],
  controls: defaultControls().extend([new ScaleLine({ units: 'metric' }), readout])
})
map.on('change:view', () => readout.clear())
map.addLayer(basemap)
// A counter of completed renders (all layers drawn, no animation): the browser test waits on it.
let renders = 0
map.on('rendercomplete', () => { document.body.dataset.mapRendered = String(++renders) })
const tileLayer = new TileLayer({ className: 'tiles' })
const imageLayer = new ImageLayer({ className: 'wms' })
export const overlay = new VectorSource()
const overlayLayer = new VectorLayer({
  source: overlay,
  style: new Style({ stroke: new Stroke({ color: '#d1242f', width: 2 }), fill: new Fill({ color: 'rgba(209,36,47,0.08)' }) })
})
map.addLayer(tileLayer)
map.addLayer(imageLayer)
map.addLayer(vectorTileLayer)
map.addLayer(overlayLayer)

export const layerNamed = (name: string) => layers.find((l) => l.name === name)
const current = () => layerNamed($<HTMLSelectElement>('layer').value)
const gridSet = (id: string) => gridSets.find((g) => g.id === id)!
const chosenStyle = () => $<HTMLSelectElement>('style').value

function showLayer () {
  const layer = current()
  const gs = gridSet($<HTMLSelectElement>('gridset').value)
  if (!layer || !gs) { tileLayer.setSource(null); imageLayer.setSource(null); hideVectorTiles(); return }
  const service = $<HTMLSelectElement>('service').value
  if (service !== 'MVT') hideVectorTiles()
  if (service === 'MVT') {
    tileLayer.setSource(null)
    imageLayer.setSource(null)
    void showVectorTiles(layer.name, chosenStyle(), gs, coverageOf(layer, gs))
  } else if (service === 'WMS') {
    tileLayer.setSource(null)
    imageLayer.setSource(new ImageWMS({
      url: `${BASE}/wms`,
      params: { LAYERS: layer.name, STYLES: chosenStyle(), FORMAT: 'image/png', TRANSPARENT: true, VERSION: '1.3.0', ...dimensionParams() },
      projection: gs.id,
      ratio: 1
    }))
  } else {
    imageLayer.setSource(null)
    showTiles(layer, gs)
  }
  fitView(layer, gs)
}

function showTiles (layer: LayerInfo, gs: GridSetInfo) {
  const origin: [number, number] = [gs.extent[0], gs.extent[3]]
  const coverage = coverageOf(layer, gs)
  tileLayer.setSource(new WMTS({
    url: `${BASE}/gwc/service/wmts`,
    requestEncoding: 'KVP',
    layer: layer.name,
    matrixSet: gs.id,
    format: 'image/png',
    style: chosenStyle(),
    projection: gs.id,
    tileGrid: new WMTSTileGrid({
      origin,
      extent: coverage,
      resolutions: gs.resolutions,
      matrixIds: gs.resolutions.map((_, z) => `${gs.id}:${z}`),
      tileSize: gs.tileSize
    }),
    dimensions: dimensionParams(),
    wrapX: false
  }))
}

/** Tiles only where the layer has data: the tile services answer 404 outside its coverage. */
function coverageOf (layer: LayerInfo, gs: GridSetInfo): Extent {
  return layer.bbox ? getIntersection(transformExtent(layer.bbox, 'EPSG:4326', gs.id), gs.extent) : gs.extent
}

function fitView (layer: LayerInfo, gs: GridSetInfo) {
  const view = map.getView()
  if (view.getProjection().getCode() !== gs.id || !map.get('fitted')) {
    const extent = layer.bbox ? transformExtent(layer.bbox, 'EPSG:4326', gs.id) : gs.extent
    const next = new View({ projection: gs.id, extent: gs.extent, maxZoom: gs.maxZoom, constrainOnlyCenter: true })
    map.setView(next)
    showBasemap(gs.id)
    next.fit(extent, { padding: [10, 10, 10, 10] })
    map.set('fitted', true)
    overlay.clear()
  }
}

function dimensionParams (): Record<string, string> {
  const out: Record<string, string> = {}
  const t = $<HTMLSelectElement>('time').value
  const e = $<HTMLSelectElement>('elevation').value
  if (t) out.TIME = t
  if (e) out.ELEVATION = e
  return out
}

/** A layer chosen: its styles and dimension values in the pickers, the view fitted to it, its legend. */
export function showChosenLayer () {
  const layer = current()
  // Vector tiles for the layers offering them (vector layers and groups); the raster views otherwise.
  const mvt = $<HTMLSelectElement>('service').querySelector<HTMLOptionElement>('option[value="MVT"]')!
  mvt.disabled = !layer?.formats.includes(MVT_FORMAT)
  if (mvt.disabled && mvt.selected) $<HTMLSelectElement>('service').value = 'WMTS'
  fillSelect($<HTMLSelectElement>('style'), layer?.styles ?? [], layer?.defaultStyle)
  const { time, elevation } = layer?.dimensions ?? {}
  $('time-label').hidden = !time?.length
  $('elevation-label').hidden = !elevation?.length
  fillSelect($<HTMLSelectElement>('time'), time ?? [], '', 'default (latest)')
  fillSelect($<HTMLSelectElement>('elevation'), elevation ?? [], '', 'default (lowest)')
  map.set('fitted', false)
  showLayer()
  void showLegend()
}

function paramsChanged () {
  void showLegend()
  const image = imageLayer.getSource()
  if (image instanceof ImageWMS) {
    const params: Record<string, unknown> = { STYLES: chosenStyle(), TIME: undefined, ELEVATION: undefined, ...dimensionParams() }
    image.updateParams(params)
    return
  }
  if ($<HTMLSelectElement>('service').value === 'MVT') { showLayer(); return }
  const source = tileLayer.getSource()
  if (source instanceof WMTS) {
    // Style is part of the source: rebuild; dimensions can be updated in place.
    if (source.getStyle() !== chosenStyle()) showLayer()
    else source.updateDimensions(dimensionParams())
  }
}

/** The layers and grid sets of layers.json in the pickers; the layer picker itself is app.ts's. */
export function startMap (doc: LayerList) {
  layers = doc.layers
  gridSets = doc.gridSets
  fillSelect($<HTMLSelectElement>('layer'), layers.map((l) => l.name))
  $('no-layers').hidden = layers.length > 0
  $('gridset').addEventListener('change', () => { map.set('fitted', false); showLayer() })
  $('service').addEventListener('change', showLayer)
  for (const id of ['style', 'time', 'elevation']) $(id).addEventListener('change', paramsChanged)
}
