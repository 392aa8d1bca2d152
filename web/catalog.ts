// The read-only catalog panels: the vector layers the user may read ({base}/web/vector-layers.json:
// geometry type, feature count, bounds), the styles (global ones, then each workspace's, linked to
// their SLD), the mosaics ({base}/web/mosaics.json), whose granule footprints can be drawn on the map,
// and the app-schema feature types ({base}/web/app-schema.json: target element, source data store).
import GeoJSON from 'ol/format/GeoJSON.js'
import type { Extent } from 'ol/extent.js'
import { BASE, REST, asList, getJson } from './http.js'
import { $, el, say, sayError } from './dom.js'
import { map, overlay } from './map.js'

export async function loadStyles () {
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

interface VectorLayerInfo { name: string, title: string, geometryType: string | null, featureCount: number | null, bounds: Extent | null, srs: string | null }
export async function loadVectorLayers () {
  const { layers } = await getJson<{ layers: VectorLayerInfo[] }>(`${BASE}/web/vector-layers.json`)
  const bounds = (b: Extent | null) => b ? b.map((v) => String(Math.round(v * 1e6) / 1e6)).join(', ') : '–'
  const rows = layers.map((l) => el('tr', { 'data-layer': l.name },
    el('td', { title: l.title }, l.name), el('td', {}, l.geometryType ?? '–'),
    el('td', {}, l.featureCount === null ? 'unreadable' : l.featureCount.toLocaleString('en')), el('td', {}, bounds(l.bounds)), el('td', {}, l.srs ?? '–')))
  $('vector-layers').querySelector('tbody')!.replaceChildren(...(rows.length ? rows : [el('tr', {}, el('td', { colspan: '5' }, 'No vector layer you may read.'))]))
}

interface MosaicInfo { workspace: string, store: string, crs?: string, granules: number, extent?: Extent, coverages: string[] }
export async function loadMosaics () {
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

interface AppSchemaStoreInfo {
  workspace: string, store: string, enabled: boolean
  featureTypes: Array<{ name: string, targetElement: string, sourceDataStore: string, sourceType: string, dbtype: string, geometry: string | null, srs: string | null }>
}
export async function loadAppSchema () {
  const { stores } = await getJson<{ stores: AppSchemaStoreInfo[] }>(`${BASE}/web/app-schema.json`)
  const rows = stores.flatMap((st) => st.featureTypes.map((f) => {
    const storeUrl = `${REST}/workspaces/${encodeURIComponent(st.workspace)}/datastores/${encodeURIComponent(st.store)}`
    return el('tr', { 'data-feature-type': f.name },
      el('td', {}, f.name), el('td', {}, f.targetElement),
      el('td', {}, el('a', { href: `${storeUrl}.json` }, `${st.workspace}:${st.store}`), ` ${f.sourceDataStore} (${f.dbtype}): ${f.sourceType}`),
      el('td', { title: f.geometry ? 'drawn as a map layer' : 'served as features only (WFS)' }, f.geometry ?? '–'), el('td', {}, f.srs ?? '–'))
  }))
  $('app-schema').querySelector('tbody')!.replaceChildren(...(rows.length ? rows : [el('tr', {}, el('td', { colspan: '5' }, 'No app-schema feature type.'))]))
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
  } catch (err) { sayError(err) }
}
