// The legend beside the map: the chosen layer's chosen style drawn from its ColorMap
// ({base}/web/legend.json), a swatch per entry and a line saying how the colors apply.
import { BASE, getJson } from './http.js'
import { $, el } from './dom.js'

interface Legend { layer: string, style: string, type: string | null, entries: Array<{ quantity: number | null, color: string, opacity: number, label?: string }> }

const fmt = (q: number | null) => q === null ? '∞' : String(q)

function entry (type: string | null, e: Legend['entries'][number]): HTMLLIElement {
  const swatch = el('span', { class: e.opacity === 0 ? 'swatch transparent' : 'swatch', title: e.opacity === 0 ? 'transparent' : e.color })
  swatch.style.background = e.color
  swatch.style.opacity = String(e.opacity)
  const range = type === 'intervals' ? `< ${fmt(e.quantity)}` : type === 'values' ? `= ${fmt(e.quantity)}` : fmt(e.quantity)
  return el('li', { 'data-quantity': fmt(e.quantity) }, swatch, `${e.label ?? range}${e.label ? ` (${range})` : ''}`)
}

export async function showLegend () {
  const layer = $<HTMLSelectElement>('layer').value
  const box = $('legend')
  if (!layer) { box.replaceChildren(); return }
  const style = $<HTMLSelectElement>('style').value
  try {
    const { legend } = await getJson<{ legend: Legend }>(`${BASE}/web/legend.json?layer=${encodeURIComponent(layer)}&style=${encodeURIComponent(style)}`)
    if ($<HTMLSelectElement>('style').value !== style || $<HTMLSelectElement>('layer').value !== layer) return // changed meanwhile
    const title = el('h3', {}, `Legend: ${legend.style}`)
    if (!legend.entries.length) {
      box.replaceChildren(title, el('p', { class: 'muted' }, 'No color map: the bands are drawn as they are (gray or RGB).'))
    } else {
      box.replaceChildren(title, el('p', { class: 'muted' }, legend.type === 'ramp' ? 'Colors blend between the entries.' : legend.type === 'intervals' ? 'Each color up to its value.' : 'Exact values only.'),
        el('ul', { class: 'legend' }, ...legend.entries.map((e) => entry(legend.type, e))))
    }
    box.dataset.style = legend.style
  } catch (err) { box.replaceChildren(el('p', { class: 'error' }, (err as Error).message)) }
}
