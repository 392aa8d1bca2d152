// The admin page: layers on an OpenLayers map (WMTS KVP from the tile cache), the seed form,
// live tasks from the server-sent-events stream, the disk quota, styles and mosaics. Everything
// goes through the same REST API a script would use; no inline script (the page has a strict CSP).
import OlMap from 'ol/Map.js'
import View from 'ol/View.js'
import TileLayer from 'ol/layer/Tile.js'
import VectorLayer from 'ol/layer/Vector.js'
import VectorSource from 'ol/source/Vector.js'
import WMTS from 'ol/source/WMTS.js'
import WMTSTileGrid from 'ol/tilegrid/WMTS.js'
import GeoJSON from 'ol/format/GeoJSON.js'
import Draw, { createBox } from 'ol/interaction/Draw.js'
import { transformExtent } from 'ol/proj.js'
import { getIntersection, type Extent } from 'ol/extent.js'
import Style from 'ol/style/Style.js'
import Stroke from 'ol/style/Stroke.js'
import Fill from 'ol/style/Fill.js'
import ScaleLine from 'ol/control/ScaleLine.js'
import MousePosition from 'ol/control/MousePosition.js'
import { defaults as defaultControls } from 'ol/control/defaults.js'
import { createStringXY } from 'ol/coordinate.js'
import { feature } from 'topojson-client'
import type { Topology, GeometryCollection } from 'topojson-specification'
// Natural Earth country outlines at 1:110m (the world-atlas package), bundled: the basemap needs
// no tile server and works offline.
import countries from 'world-atlas/countries-110m.json'

interface GridSetInfo { id: string, extent: Extent, resolutions: number[], maxZoom: number, tileSize: number }
interface LayerInfo {
  name: string, workspace: string, title: string, type: string, bbox?: Extent,
  defaultStyle?: string, styles: string[], formats: string[],
  dimensions: { time?: string[], elevation?: number[] }
}
interface TaskView {
  id: number, type: string, layer: string, gridSetId: string, format: string, zoomStart: number, zoomStop: number,
  state: 'pending' | 'running' | 'done' | 'aborted', status: number,
  /** This task's own share (tilesTotal: what it had to do), then the whole request's sum. */
  tilesDone: number, tilesTotal: number, tilesRemaining: number, percentDone: number,
  tilesPerSecond: number, etaSeconds: number, error?: string,
  request?: { taskIds: { id: number[] }, tilesDone: number, tilesTotal: number, tilesRemaining: number, percentDone: number }
}

const BASE = location.pathname.replace(/\/web\/[^/]*$/, '')
const REST = `${BASE}/rest`
const CACHE = `${BASE}/tilecache/rest`

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const el = document.getElementById(id)
  if (!el) throw new Error(`missing #${id}`)
  return el as T
}
function el<K extends keyof HTMLElementTagNameMap> (tag: K, props: Partial<Record<string, string>> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(props)) if (v !== undefined) e.setAttribute(k, v)
  for (const c of children) e.append(c)
  return e
}

function say (text: string, error = false) {
  const m = $('message')
  m.textContent = text
  m.className = error ? 'error' : ''
  m.hidden = false
}

async function call (url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { credentials: 'same-origin', ...init })
  if (!res.ok) {
    const text = (await res.text()).slice(0, 300)
    throw new Error(`${init.method ?? 'GET'} ${url.replace(BASE, '')}: ${res.status} ${text}`)
  }
  return res
}
const getJson = async <T>(url: string): Promise<T> => (await call(url, { headers: { accept: 'application/json' } })).json() as Promise<T>
const asList = <T>(v: unknown): T[] => Array.isArray(v) ? v : v && typeof v === 'object' ? [v as T] : []

function bytes (n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let i = 0
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++ }
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`
}

// ---------------------------------------------------------------------------------------------
// Map

let layers: LayerInfo[] = []
let gridSets: GridSetInfo[] = []
const map = new OlMap({
  target: 'map',
  layers: [],
  controls: defaultControls().extend([
    new ScaleLine({ units: 'metric' }),
    // Longitude, latitude under the pointer, whatever the grid set, in a readout below the map.
    new MousePosition({ projection: 'EPSG:4326', coordinateFormat: createStringXY(4), target: 'mouse-position', placeholder: 'lon, lat: move over the map' })
  ])
})
// The basemap: country outlines drawn as vectors under the tiles (the tiles keep their own canvas).
const basemap = new VectorLayer({
  className: 'basemap',
  style: new Style({ fill: new Fill({ color: '#f4f1ea' }), stroke: new Stroke({ color: '#9aa5b1', width: 0.8 }) })
})
const outlines = feature(countries as unknown as Topology, (countries as unknown as Topology).objects.countries as GeometryCollection)
function showBasemap (projection: string) {
  if (basemap.get('projection') === projection) return
  basemap.setSource(new VectorSource({ features: new GeoJSON().readFeatures(outlines, { dataProjection: 'EPSG:4326', featureProjection: projection }) }))
  basemap.set('projection', projection)
}
map.addLayer(basemap)
// A counter of completed renders (all layers drawn, no animation): the browser test waits on it.
let renders = 0
map.on('rendercomplete', () => { document.body.dataset.mapRendered = String(++renders) })
const tileLayer = new TileLayer({ className: 'tiles' })
const overlay = new VectorSource()
const overlayLayer = new VectorLayer({
  source: overlay,
  style: new Style({ stroke: new Stroke({ color: '#d1242f', width: 2 }), fill: new Fill({ color: 'rgba(209,36,47,0.08)' }) })
})
map.addLayer(tileLayer)
map.addLayer(overlayLayer)

const current = () => layers.find((l) => l.name === $<HTMLSelectElement>('layer').value)
const gridSet = (id: string) => gridSets.find((g) => g.id === id)!

function fillSelect (select: HTMLSelectElement, values: Array<string | number>, selected?: string, blank?: string) {
  select.replaceChildren(...(blank !== undefined ? [el('option', { value: '' }, blank)] : []),
    ...values.map((v) => el('option', { value: String(v) }, String(v))))
  if (selected !== undefined) select.value = selected
}

function showLayer () {
  const layer = current()
  const gs = gridSet($<HTMLSelectElement>('gridset').value)
  if (!layer || !gs) { tileLayer.setSource(null); return }
  const origin: [number, number] = [gs.extent[0], gs.extent[3]]
  // Tiles only where the layer has data: the tile services answer 404 outside its coverage.
  const coverage = layer.bbox ? getIntersection(transformExtent(layer.bbox, 'EPSG:4326', gs.id), gs.extent) : gs.extent
  const source = new WMTS({
    url: `${BASE}/gwc/service/wmts`,
    requestEncoding: 'KVP',
    layer: layer.name,
    matrixSet: gs.id,
    format: 'image/png',
    style: $<HTMLSelectElement>('style').value,
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
  })
  tileLayer.setSource(source)
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

function layerChanged () {
  const layer = current()
  fillSelect($<HTMLSelectElement>('style'), layer?.styles ?? [], layer?.defaultStyle)
  const { time, elevation } = layer?.dimensions ?? {}
  $('time-label').hidden = !time?.length
  $('elevation-label').hidden = !elevation?.length
  fillSelect($<HTMLSelectElement>('time'), time ?? [], '', 'default (latest)')
  fillSelect($<HTMLSelectElement>('elevation'), elevation ?? [], '', 'default (lowest)')
  map.set('fitted', false)
  showLayer()
  void showLegend()
  if (layer) $<HTMLSelectElement>('seed-layer').value = layer.name
  seedLayerChanged()
}

/** The seed form's style choices follow its layer: blank is the layer's default style. */
function seedLayerChanged () {
  const layer = layers.find((l) => l.name === $<HTMLSelectElement>('seed-layer').value)
  fillSelect($<HTMLSelectElement>('seed-style'), (layer?.styles ?? []).filter((s) => s !== layer?.defaultStyle), '', `default${layer?.defaultStyle ? ` (${layer.defaultStyle})` : ''}`)
}

interface Legend { layer: string, style: string, type: string | null, entries: Array<{ quantity: number | null, color: string, opacity: number, label?: string }> }

/** The chosen style's legend, drawn from its ColorMap (web/legend.json): a swatch per entry. */
async function showLegend () {
  const layer = current()
  const box = $('legend')
  if (!layer) { box.replaceChildren(); return }
  const style = $<HTMLSelectElement>('style').value
  try {
    const { legend } = await getJson<{ legend: Legend }>(`${BASE}/web/legend.json?layer=${encodeURIComponent(layer.name)}&style=${encodeURIComponent(style)}`)
    if ($<HTMLSelectElement>('style').value !== style || current() !== layer) return // changed meanwhile
    const title = el('h3', {}, `Legend: ${legend.style}`)
    if (!legend.entries.length) {
      box.replaceChildren(title, el('p', { class: 'muted' }, 'No color map: the bands are drawn as they are (gray or RGB).'))
    } else {
      const fmt = (q: number | null) => q === null ? '∞' : String(q)
      const items = legend.entries.map((e) => {
        const swatch = el('span', { class: e.opacity === 0 ? 'swatch transparent' : 'swatch', title: e.opacity === 0 ? 'transparent' : e.color })
        swatch.style.background = e.color
        swatch.style.opacity = String(e.opacity)
        const range = legend.type === 'intervals' ? `< ${fmt(e.quantity)}` : legend.type === 'values' ? `= ${fmt(e.quantity)}` : fmt(e.quantity)
        return el('li', { 'data-quantity': fmt(e.quantity) }, swatch, `${e.label ?? range}${e.label ? ` (${range})` : ''}`)
      })
      box.replaceChildren(title, el('p', { class: 'muted' }, legend.type === 'ramp' ? 'Colors blend between the entries.' : legend.type === 'intervals' ? 'Each color up to its value.' : 'Exact values only.'),
        el('ul', { class: 'legend' }, ...items))
    }
    box.dataset.style = legend.style
  } catch (err) { box.replaceChildren(el('p', { class: 'error' }, (err as Error).message)) }
}

function paramsChanged () {
  void showLegend()
  const source = tileLayer.getSource()
  if (source instanceof WMTS) {
    // Style is part of the source: rebuild; dimensions can be updated in place.
    if (source.getStyle() !== $<HTMLSelectElement>('style').value) showLayer()
    else source.updateDimensions(dimensionParams())
  }
}

// ---------------------------------------------------------------------------------------------
// Seed form

let drawing: Draw | undefined
function drawBounds () {
  if (drawing) map.removeInteraction(drawing)
  drawing = new Draw({ source: overlay, type: 'Circle', geometryFunction: createBox() })
  drawing.on('drawstart', () => overlay.clear())
  drawing.on('drawend', (ev) => {
    const drawn = ev.feature.getGeometry()!.getExtent()
    const form = $<HTMLFormElement>('seed-form')
    const target = (form.elements.namedItem('gridSetId') as HTMLSelectElement).value
    const b = transformExtent(drawn, map.getView().getProjection(), target)
    const digits = target === 'EPSG:4326' ? 6 : 2
    ;(['minx', 'miny', 'maxx', 'maxy'] as const).forEach((k, i) => { (form.elements.namedItem(k) as HTMLInputElement).value = b[i].toFixed(digits) })
    map.removeInteraction(drawing!)
    drawing = undefined
  })
  map.addInteraction(drawing)
  say('Drag a box on the map to set the bounds.')
}

async function submitSeed (ev: SubmitEvent) {
  ev.preventDefault()
  const form = ev.target as HTMLFormElement
  const f = new FormData(form)
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
  const coords = ['minx', 'miny', 'maxx', 'maxy'].map(value)
  if (coords.some((c) => c !== '')) request.bounds = { coords: { double: coords.map(Number) } }
  const entry: Array<{ string: [string, string] }> = []
  if (value('style')) entry.push({ string: ['STYLES', value('style')] })
  if (value('cql')) entry.push({ string: ['CQL_FILTER', value('cql')] })
  if (entry.length) request.parameters = { entry }
  try {
    await call(`${CACHE}/seed/${encodeURIComponent(value('layer'))}.json`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seedRequest: request })
    })
    say(`${value('type')} of ${value('layer')} submitted.`)
  } catch (err) { say((err as Error).message, true) }
}

// ---------------------------------------------------------------------------------------------
// Tasks (live from {cache}/seed/events)

const tasks = new Map<number, TaskView>()
// The newest sum of each request (keyed by its task ids): every task's row shows it, also the row
// of a task that ended before its siblings did.
const requests = new Map<string, NonNullable<TaskView['request']>>()
const requestKey = (t: TaskView) => t.request?.taskIds.id.join(',') ?? String(t.id)
const finishedKept = 20
const isLive = (t: TaskView) => t.state === 'pending' || t.state === 'running'

function eta (s: number): string {
  if (s < 0) return '–'
  if (s < 90) return `${s} s`
  if (s < 5400) return `${Math.round(s / 60)} min`
  return `${(s / 3600).toFixed(1)} h`
}
const count = (n: number) => n.toLocaleString('en')
/** "48 of 50 tiles (96 %)"; empty while not counted (pending, a running truncate). */
function ofTotal (done: number, total: number, percent: number, state: string): string {
  if (total < 0) return done >= 0 && state !== 'pending' ? `${count(done)} tiles` : ''
  return `${count(Math.max(0, done))} of ${count(total)} tiles (${percent} %)`
}

// Live tasks and finished ones sit in two tables. Rows are kept by task id and updated in place,
// so a Kill button stays put while progress events stream in (a row rebuilt on every event could
// not be clicked reliably); a task that ends moves once, to the top of the recent table.
interface Row { tr: HTMLTableRowElement, state: HTMLTableCellElement, progress: HTMLProgressElement, own: HTMLSpanElement, request: HTMLTableCellElement, rate: HTMLTableCellElement, eta: HTMLTableCellElement, kill: HTMLButtonElement }
const rows = new Map<number, Row>()

function rowOf (t: TaskView): Row {
  let r = rows.get(t.id)
  if (!r) {
    const td = (cls: string, ...children: Array<Node | string>) => el('td', { class: cls }, ...children)
    const progress = el('progress', { max: '1', 'data-task': String(t.id) })
    const own = el('span', { class: 'count' })
    const kill = el('button', { type: 'button', class: 'kill', 'data-task': String(t.id), 'data-layer': t.layer }, 'Kill')
    const cells = {
      state: td('state'), request: td('request'), rate: td('rate'), eta: td('eta')
    }
    const tr = el('tr', { 'data-task': String(t.id) }, td('id', String(t.id)), td('layer', t.layer), td('type', t.type), cells.state,
      td('progress', progress, own), cells.request, cells.rate, cells.eta, td('actions', kill))
    r = { tr, progress, own, kill, ...cells }
    rows.set(t.id, r)
  }
  return r
}

function renderTasks () {
  const liveBody = $('tasks').querySelector('tbody')!
  const recentBody = $('recent-tasks').querySelector('tbody')!
  for (const [id, r] of rows) if (!tasks.has(id)) { r.tr.remove(); rows.delete(id) }
  const sorted = [...tasks.values()].sort((a, b) => a.id - b.id)
  for (const t of sorted) {
    const r = rowOf(t)
    const live = isLive(t)
    r.tr.dataset.state = t.state
    r.progress.dataset.state = t.state
    if (t.percentDone >= 0) r.progress.value = t.percentDone / 100
    else if (!live) r.progress.value = 0
    else r.progress.removeAttribute('value') // indeterminate: truncate, or not yet counted
    r.own.textContent = ofTotal(t.tilesDone, t.tilesTotal, t.percentDone, t.state)
    const q = requests.get(requestKey(t)) ?? t.request
    const siblings = q ? q.taskIds.id.length : 1
    r.request.textContent = q && siblings > 1 ? `${ofTotal(q.tilesDone, q.tilesTotal, q.percentDone, t.state)}, tasks ${q.taskIds.id.join(', ')}` : siblings > 1 ? '' : 'this task'
    r.state.textContent = t.state + (t.error ? ` (${t.error})` : '')
    r.state.title = t.error ?? ''
    r.rate.textContent = t.tilesPerSecond > 0 ? String(t.tilesPerSecond) : '–'
    r.eta.textContent = live ? eta(t.etaSeconds) : '–'
    r.kill.disabled = !live
    r.kill.hidden = !live
  }
  // Rows move only when the order changes (a new or finished task), not on each progress event.
  const place = (body: HTMLElement, wanted: HTMLTableRowElement[]) => {
    if (wanted.length !== body.children.length || wanted.some((tr, i) => body.children[i] !== tr)) body.append(...wanted)
  }
  const live = sorted.filter(isLive)
  place(liveBody, live.map((t) => rows.get(t.id)!.tr))
  place(recentBody, sorted.filter((t) => !isLive(t)).reverse().map((t) => rows.get(t.id)!.tr))
  $('no-tasks').hidden = live.length > 0
  $('no-recent').hidden = live.length !== sorted.length
}

function onTask (t: TaskView) {
  tasks.set(t.id, t)
  if (t.request) requests.set(requestKey(t), t.request)
  const finished = [...tasks.values()].filter((x) => !isLive(x)).sort((a, b) => a.id - b.id)
  for (const old of finished.slice(0, Math.max(0, finished.length - finishedKept))) tasks.delete(old.id)
  const kept = new Set([...tasks.values()].map(requestKey))
  for (const key of requests.keys()) if (!kept.has(key)) requests.delete(key)
  scheduleRender()
  if (!isLive(t)) scheduleQuota()
}

let renderPending = false
function scheduleRender () {
  if (renderPending) return
  renderPending = true
  requestAnimationFrame(() => { renderPending = false; renderTasks() })
}

function watchTasks () {
  const source = new EventSource(`${CACHE}/seed/events`)
  source.addEventListener('task', (ev) => onTask(JSON.parse((ev as MessageEvent).data) as TaskView))
  source.addEventListener('open', () => document.body.setAttribute('data-stream', 'open'))
}

async function kill (form: Record<string, string>, layer?: string) {
  const url = layer ? `${CACHE}/seed/${encodeURIComponent(layer)}` : `${CACHE}/seed`
  try {
    const res = await call(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() })
    const text = (await res.text()).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim()
    say(text)
  } catch (err) { say((err as Error).message, true) }
}

// ---------------------------------------------------------------------------------------------
// Disk quota

interface Usage {
  enabled: boolean, usedBytes: number, lastCleanUp?: string,
  globalQuota: { quotaBytes: number, usedBytes: number, expirationPolicyName: string },
  layers: { layer?: unknown } | string
}
interface QuotaConfig {
  enabled: boolean, cacheCleanUpFrequency: number, cacheCleanUpUnits: string, maxConcurrentCleanUps: number,
  globalExpirationPolicyName: string, globalQuota: { value: string, units: string }
}

/** A share as a percentage that does not read 0.0 % for a small non-zero use. */
const pct = (part: number) => part > 0 && part < 0.001 ? '< 0.1 %' : `${(part * 100).toFixed(1)} %`

let quotaTimer: number | undefined
function scheduleQuota () {
  if (quotaTimer !== undefined) return
  quotaTimer = window.setTimeout(() => { quotaTimer = undefined; void loadQuota() }, 300)
}

async function loadQuota () {
  try {
    const { diskQuotaUsage: u } = await getJson<{ diskQuotaUsage: Usage }>(`${CACHE}/diskquota/usage.json`)
    const quota = u.globalQuota.quotaBytes
    const used = u.globalQuota.usedBytes
    const bar = $('quota-bar')
    const share = quota > 0 ? Math.min(1, used / quota) : 0
    ;(bar.firstElementChild as HTMLElement).style.width = `${(share * 100).toFixed(2)}%`
    bar.classList.toggle('over', used > quota)
    bar.dataset.used = String(used)
    bar.title = `${bytes(used)} of ${bytes(quota)}`
    $('quota-text').textContent = `${bytes(used)} used of ${bytes(quota)} (${pct(used / Math.max(1, quota))})${u.enabled ? '' : ', quota disabled'}`
    $('quota-policy').textContent = u.globalQuota.expirationPolicyName
    $('quota-cleanup').textContent = u.lastCleanUp ? new Date(u.lastCleanUp).toLocaleString() : 'never'
    const rows = asList<{ name: string, usedBytes: number, tiles: number, quotaBytes?: number }>(typeof u.layers === 'object' ? u.layers.layer : undefined)
    // Each layer against its own quota if it has one, else the global one: the bars and the
    // global bar read on one scale (a layer's bar is never full beside an empty global bar).
    $('quota-layers').replaceChildren(...rows.map((r) => {
      const limit = r.quotaBytes ?? quota
      const part = limit > 0 ? r.usedBytes / limit : 0
      const fill = el('div', { class: 'fill' })
      fill.style.width = `${(100 * Math.min(1, part)).toFixed(2)}%`
      const bar = el('div', { class: 'bar', title: `${bytes(r.usedBytes)} of ${bytes(limit)}${r.quotaBytes !== undefined ? ' (layer quota)' : ' (global quota)'}` }, fill)
      bar.classList.toggle('over', part > 1)
      return el('div', { class: 'row', 'data-layer': r.name }, el('span', {}, r.name), bar, el('span', {}, `${bytes(r.usedBytes)}, ${r.tiles} tiles, ${pct(part)} of ${r.quotaBytes !== undefined ? 'its' : 'the global'} quota`))
    }))
  } catch (err) { say((err as Error).message, true) }
}

async function loadQuotaForm () {
  const { tilecacheQuotaConfiguration: c } = await getJson<{ tilecacheQuotaConfiguration: QuotaConfig }>(`${CACHE}/diskquota.json`)
  const form = $<HTMLFormElement>('quota-form')
  const set = (k: string, v: string | boolean) => {
    const input = form.elements.namedItem(k) as HTMLInputElement
    if (typeof v === 'boolean') input.checked = v
    else input.value = v
  }
  set('enabled', c.enabled)
  set('value', c.globalQuota.value)
  set('units', c.globalQuota.units)
  set('policy', c.globalExpirationPolicyName)
  set('frequency', String(c.cacheCleanUpFrequency))
  set('frequencyUnits', c.cacheCleanUpUnits)
  set('maxConcurrent', String(c.maxConcurrentCleanUps))
}

async function saveQuota (ev: SubmitEvent) {
  ev.preventDefault()
  const f = new FormData(ev.target as HTMLFormElement)
  const body = {
    tilecacheQuotaConfiguration: {
      enabled: f.get('enabled') === 'on',
      globalQuota: { value: String(f.get('value')), units: String(f.get('units')) },
      globalExpirationPolicyName: String(f.get('policy')),
      cacheCleanUpFrequency: Number(f.get('frequency')),
      cacheCleanUpUnits: String(f.get('frequencyUnits')),
      maxConcurrentCleanUps: Number(f.get('maxConcurrent'))
    }
  }
  try {
    await call(`${CACHE}/diskquota.json`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    // The message comes once the page shows the new settings, so what it says is on screen.
    await Promise.all([loadQuota(), loadQuotaForm()])
    say('Disk quota saved.')
  } catch (err) { say((err as Error).message, true) }
}

// ---------------------------------------------------------------------------------------------
// Styles and mosaics (read-only)

async function loadStyles () {
  // Global styles, then each workspace's: links to their SLD.
  const list = async (url: string) => {
    const doc = await getJson<{ styles: { style?: unknown } | string }>(url)
    return asList<{ name: string }>(typeof doc.styles === 'object' ? doc.styles.style : undefined).map((s) => s.name)
  }
  const ws = await getJson<{ workspaces: { workspace?: unknown } | string }>(`${REST}/workspaces.json`)
  const names = asList<{ name: string }>(typeof ws.workspaces === 'object' ? ws.workspaces.workspace : undefined).map((w) => w.name)
  const items: HTMLElement[] = []
  for (const name of await list(`${REST}/styles.json`)) {
    items.push(el('li', {}, el('a', { href: `${REST}/styles/${encodeURIComponent(name)}.sld` }, name)))
  }
  for (const w of names) {
    for (const name of await list(`${REST}/workspaces/${encodeURIComponent(w)}/styles.json`)) {
      items.push(el('li', {}, el('a', { href: `${REST}/workspaces/${encodeURIComponent(w)}/styles/${encodeURIComponent(name)}.sld` }, `${w}:${name}`)))
    }
  }
  $('styles').replaceChildren(...(items.length ? items : [el('li', {}, 'No style.')]))
}

interface MosaicInfo { workspace: string, store: string, crs?: string, granules: number, extent?: Extent, coverages: string[] }
async function loadMosaics () {
  const { mosaics } = await getJson<{ mosaics: MosaicInfo[] }>(`${BASE}/web/mosaics.json`)
  $('mosaics').querySelector('tbody')!.replaceChildren(...mosaics.map((m) => {
    const storeUrl = `${REST}/workspaces/${encodeURIComponent(m.workspace)}/coveragestores/${encodeURIComponent(m.store)}`
    const links = m.coverages.map((c) => el('a', { href: `${storeUrl}/coverages/${encodeURIComponent(c)}.json` }, c))
    const show = el('button', { type: 'button', class: 'footprints', 'data-store': `${m.workspace}:${m.store}` }, 'Footprints')
    show.disabled = m.coverages.length === 0 || !(m.crs === 'EPSG:4326' || m.crs === 'EPSG:3857' || m.crs === 'EPSG:900913')
    if (show.disabled && m.coverages.length) show.title = `footprints are drawn for EPSG:4326 and EPSG:3857 mosaics only (this one is ${m.crs ?? 'empty'})`
    show.addEventListener('click', () => { void footprints(m, storeUrl) })
    return el('tr', {}, el('td', {}, el('a', { href: `${storeUrl}.json` }, `${m.workspace}:${m.store}`)), el('td', {}, m.crs ?? '–'),
      el('td', {}, String(m.granules)), el('td', {}, ...links.flatMap((a, i) => i ? [', ', a] : [a])), el('td', {}, show))
  }))
}

async function footprints (m: MosaicInfo, storeUrl: string) {
  try {
    const fc = await getJson<object>(`${storeUrl}/coverages/${encodeURIComponent(m.coverages[0])}/index/granules.json?limit=2000`)
    const dataProjection = m.crs === 'EPSG:4326' ? 'EPSG:4326' : 'EPSG:3857'
    const features = new GeoJSON().readFeatures(fc, { dataProjection, featureProjection: map.getView().getProjection() })
    overlay.clear()
    overlay.addFeatures(features)
    const extent = overlay.getExtent()
    if (features.length && extent) map.getView().fit(extent, { padding: [20, 20, 20, 20] })
    document.body.dataset.footprints = String(features.length)
    say(`${features.length} granule footprints of ${m.workspace}:${m.store} on the map.`)
  } catch (err) { say((err as Error).message, true) }
}

// ---------------------------------------------------------------------------------------------

async function start () {
  const session = await getJson<{ user: string, admin: boolean }>(`${BASE}/session`)
  $('who').textContent = `${session.user}${session.admin ? ' (administrator)' : ''}`
  const doc = await getJson<{ layers: LayerInfo[], gridSets: GridSetInfo[] }>(`${BASE}/web/layers.json`)
  layers = doc.layers
  gridSets = doc.gridSets
  const names = layers.map((l) => l.name)
  fillSelect($<HTMLSelectElement>('layer'), names)
  fillSelect($<HTMLSelectElement>('seed-layer'), names)
  $('no-layers').hidden = layers.length > 0
  $('layer').addEventListener('change', layerChanged)
  $('gridset').addEventListener('change', () => { map.set('fitted', false); showLayer() })
  for (const id of ['style', 'time', 'elevation']) $(id).addEventListener('change', paramsChanged)
  layerChanged()

  if (session.admin) {
    for (const s of document.querySelectorAll<HTMLElement>('.admin')) s.hidden = false
    $('seed-form').addEventListener('submit', (ev) => { void submitSeed(ev as SubmitEvent) })
    $('seed-layer').addEventListener('change', seedLayerChanged)
    $('draw-bounds').addEventListener('click', drawBounds)
    $('clear-bounds').addEventListener('click', () => {
      overlay.clear()
      for (const k of ['minx', 'miny', 'maxx', 'maxy']) ($<HTMLFormElement>('seed-form').elements.namedItem(k) as HTMLInputElement).value = ''
    })
    $('tasks').addEventListener('click', (ev) => {
      const b = (ev.target as HTMLElement).closest<HTMLButtonElement>('button.kill')
      if (b) void kill({ kill_thread: '1', thread_id: b.dataset.task! }, b.dataset.layer)
    })
    $('kill-all').addEventListener('click', () => { void kill({ kill_all: 'all' }) })
    $('kill-layer').addEventListener('click', () => {
      const layer = $<HTMLSelectElement>('seed-layer').value
      if (layer) void kill({ kill_all: 'all' }, layer)
    })
    $('quota-form').addEventListener('submit', (ev) => { void saveQuota(ev as SubmitEvent) })
    watchTasks()
    renderTasks()
    await Promise.all([loadQuota(), loadQuotaForm(), loadStyles(), loadMosaics()])
    window.setInterval(() => { void loadQuota() }, 5000)
  }
  document.body.dataset.ready = 'true'
}

start().catch((err) => say((err as Error).message, true))
