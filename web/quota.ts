// The disk quota panel: the usage of {cache}/diskquota/usage.json as a bar for the global quota
// and one per layer on the same scale, and the settings of {cache}/diskquota.json in a form.
import { CACHE, asList, getJson, sendJson } from './http.js'
import { $, el, field, say, sayError } from './dom.js'

function bytes (n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let i = 0
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++ }
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`
}
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

// A finished task changed the usage: read it again, once for a burst of them.
let quotaTimer: number | undefined
export function scheduleQuota () {
  if (quotaTimer !== undefined) return
  quotaTimer = window.setTimeout(() => { quotaTimer = undefined; void loadQuota() }, 300)
}

export async function loadQuota () {
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
  } catch (err) { sayError(err) }
}

export async function loadQuotaForm () {
  const { tilecacheQuotaConfiguration: c } = await getJson<{ tilecacheQuotaConfiguration: QuotaConfig }>(`${CACHE}/diskquota.json`)
  const form = $<HTMLFormElement>('quota-form')
  const set = (k: string, v: string | boolean) => {
    const input = field(form, k)
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
    await sendJson(`${CACHE}/diskquota.json`, 'PUT', body)
    // The message comes once the page shows the new settings, so what it says is on screen.
    await Promise.all([loadQuota(), loadQuotaForm()])
    say('Disk quota saved.')
  } catch (err) { sayError(err) }
}

export function startQuota () {
  $('quota-form').addEventListener('submit', (ev) => { void saveQuota(ev as SubmitEvent) })
}
