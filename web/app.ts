// The admin page's entry (index.html loads the bundle as app.js): it asks who is logged in and
// which layers they may read, starts the map and the vector layer list for everyone and, for an administrator, the seed,
// tasks, disk quota, tile settings and catalog panels. Each panel is its own module; everything
// goes through the same REST API a script would use; no inline script (the page has a strict CSP).
import { BASE, getJson } from './http.js'
import { $, fillSelect, sayError } from './dom.js'
import { type LayerList, showChosenLayer, startMap } from './map.js'
import { seedFollows, startSeed } from './seed.js'
import { startTasks } from './tasks.js'
import { loadQuota, loadQuotaForm, startQuota } from './quota.js'
import { loadTileSettings, startTileSettings } from './tile-settings.js'
import { loadAppSchema, loadMosaics, loadStyles, loadVectorLayers } from './catalog.js'

/** The layer chosen on the map is also the seed form's. */
function layerChanged () {
  showChosenLayer()
  seedFollows($<HTMLSelectElement>('layer').value)
}

async function start () {
  const session = await getJson<{ user: string, admin: boolean }>(`${BASE}/session`)
  $('who').textContent = `${session.user}${session.admin ? ' (administrator)' : ''}`
  const doc = await getJson<LayerList>(`${BASE}/web/layers.json`)
  startMap(doc)
  const names = doc.layers.map((l) => l.name)
  fillSelect($<HTMLSelectElement>('seed-layer'), names)
  fillSelect($<HTMLSelectElement>('tile-settings-layer'), names)
  $('layer').addEventListener('change', layerChanged)
  layerChanged()
  await loadVectorLayers()

  if (session.admin) {
    for (const s of document.querySelectorAll<HTMLElement>('.admin')) s.hidden = false
    startSeed()
    startQuota()
    startTileSettings()
    startTasks()
    await Promise.all([loadQuota(), loadQuotaForm(), loadStyles(), loadMosaics(), loadAppSchema(), loadTileSettings()])
    window.setInterval(() => { void loadQuota() }, 5000)
  }
  document.body.dataset.ready = 'true'
}

start().catch(sayError)
