// The seed panel: a seed, reseed or truncate request for a layer, posted as GeoWebCache's
// seedRequest JSON to {cache}/seed/{layer}.json, with bounds typed or dragged as a box on the map.
import Draw, { createBox } from 'ol/interaction/Draw.js'
import { transformExtent } from 'ol/proj.js'
import { CACHE, sendJson } from './http.js'
import { $, field, fillSelect, say, sayError } from './dom.js'
import { layerNamed, map, overlay } from './map.js'

const BOUNDS = ['minx', 'miny', 'maxx', 'maxy'] as const
const form = () => $<HTMLFormElement>('seed-form')

/** The style choices follow the form's layer: blank is the layer's default style. */
function seedLayerChanged () {
  const layer = layerNamed($<HTMLSelectElement>('seed-layer').value)
  fillSelect($<HTMLSelectElement>('seed-style'), (layer?.styles ?? []).filter((s) => s !== layer?.defaultStyle), '', `default${layer?.defaultStyle ? ` (${layer.defaultStyle})` : ''}`)
}

/** The form takes the layer chosen on the map. */
export function seedFollows (name: string) {
  if (layerNamed(name)) $<HTMLSelectElement>('seed-layer').value = name
  seedLayerChanged()
}

let drawing: Draw | undefined
function drawBounds () {
  if (drawing) map.removeInteraction(drawing)
  drawing = new Draw({ source: overlay, type: 'Circle', geometryFunction: createBox() })
  drawing.on('drawstart', () => overlay.clear())
  drawing.on('drawend', (ev) => {
    const drawn = ev.feature.getGeometry()!.getExtent()
    const target = field<HTMLSelectElement>(form(), 'gridSetId').value
    const b = transformExtent(drawn, map.getView().getProjection(), target)
    const digits = target === 'EPSG:4326' ? 6 : 2
    BOUNDS.forEach((k, i) => { field(form(), k).value = b[i].toFixed(digits) })
    map.removeInteraction(drawing!)
    drawing = undefined
  })
  map.addInteraction(drawing)
  say('Drag a box on the map to set the bounds.')
}

async function submitSeed (ev: SubmitEvent) {
  ev.preventDefault()
  const f = new FormData(ev.target as HTMLFormElement)
  const value = (k: string) => String(f.get(k) ?? '').trim()
  const request: Record<string, unknown> = {
    name: value('layer'),
    type: value('type'),
    gridSetId: value('gridSetId'),
    format: value('format'),
    zoomStart: Number(value('zoomStart')),
    zoomStop: Number(value('zoomStop')),
    threadCount: Number(value('threadCount'))
  }
  const coords = BOUNDS.map(value)
  if (coords.some((c) => c !== '')) request.bounds = { coords: { double: coords.map(Number) } }
  const entry: Array<{ string: [string, string] }> = []
  if (value('style')) entry.push({ string: ['STYLES', value('style')] })
  if (value('cql')) entry.push({ string: ['CQL_FILTER', value('cql')] })
  if (entry.length) request.parameters = { entry }
  try {
    await sendJson(`${CACHE}/seed/${encodeURIComponent(value('layer'))}.json`, 'POST', { seedRequest: request })
    say(`${value('type')} of ${value('layer')} submitted.`)
  } catch (err) { sayError(err) }
}

export function startSeed () {
  form().addEventListener('submit', (ev) => { void submitSeed(ev) })
  $('seed-layer').addEventListener('change', seedLayerChanged)
  $('draw-bounds').addEventListener('click', drawBounds)
  $('clear-bounds').addEventListener('click', () => {
    overlay.clear()
    for (const k of BOUNDS) field(form(), k).value = ''
  })
}
