// The tile cache settings panel: a layer's expireCache and expireClients (GeoWebCache's) and
// cached-only, read from and written to the layer resource {rest}/layers/{name}.json.
import { REST, getJson, sendJson } from './http.js'
import { $, field, say, sayError } from './dom.js'

interface TileSettings { expireCache?: number, expireClients?: number, cachedOnly?: boolean, cachedOnlyMissing?: string }

const layerUrl = (name: string) => `${REST}/layers/${encodeURIComponent(name)}.json`

export async function loadTileSettings () {
  const form = $<HTMLFormElement>('tile-settings-form')
  const name = $<HTMLSelectElement>('tile-settings-layer').value
  if (!name) return
  const { layer } = await getJson<{ layer: TileSettings }>(layerUrl(name))
  field(form, 'expireCache').value = String(layer.expireCache ?? 0)
  field(form, 'expireClients').value = String(layer.expireClients ?? 0)
  field(form, 'cachedOnly').checked = layer.cachedOnly ?? false
  field(form, 'cachedOnlyMissing').value = layer.cachedOnlyMissing ?? 'notFound'
  form.dataset.loaded = name
}

async function saveTileSettings (ev: SubmitEvent) {
  ev.preventDefault()
  const f = new FormData(ev.target as HTMLFormElement)
  const name = String(f.get('layer'))
  const layer = {
    expireCache: Number(f.get('expireCache')),
    expireClients: Number(f.get('expireClients')),
    cachedOnly: f.get('cachedOnly') === 'on',
    cachedOnlyMissing: String(f.get('cachedOnlyMissing'))
  }
  try {
    await sendJson(layerUrl(name), 'PUT', { layer })
    await loadTileSettings()
    say(`Tile cache settings of ${name} saved.`)
  } catch (err) { sayError(err) }
}

export function startTileSettings () {
  $('tile-settings-form').addEventListener('submit', (ev) => { void saveTileSettings(ev as SubmitEvent) })
  $('tile-settings-layer').addEventListener('change', () => { loadTileSettings().catch(sayError) })
}
