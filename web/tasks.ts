// The tasks panel: seed tasks live from {cache}/seed/events (server-sent events), running and
// pending ones in one table and finished ones in a recent table, each with its own progress beside
// its request's; kill buttons post GeoWebCache's kill forms to {cache}/seed.
import { CACHE, call } from './http.js'
import { $, el, say, sayError } from './dom.js'
import { scheduleQuota } from './quota.js'

interface TaskView {
  id: number, type: string, layer: string, gridSetId: string, format: string, zoomStart: number, zoomStop: number,
  state: 'pending' | 'running' | 'done' | 'aborted', status: number,
  /** This task's own share (tilesTotal: what it had to do), then the whole request's sum. */
  tilesDone: number, tilesTotal: number, tilesRemaining: number, percentDone: number,
  tilesPerSecond: number, etaSeconds: number, error?: string,
  request?: { taskIds: { id: number[] }, tilesDone: number, tilesTotal: number, tilesRemaining: number, percentDone: number }
}

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
/**
 * "48 of 50 tiles (96 %)"; empty while not counted (pending, a running truncate). A task killed
 * while others of its request went on reads "48 of 48 tiles, stopped": its part became what it did
 * and they took the rest (services/seed/task.ts), so a percentage would read as complete.
 */
function ofTotal (done: number, total: number, percent: number, state: string, stopped = false): string {
  if (total < 0) return done >= 0 && state !== 'pending' ? `${count(done)} tiles` : ''
  return `${count(Math.max(0, done))} of ${count(total)} tiles` + (stopped ? ', stopped' : ` (${percent} %)`)
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
    r.own.textContent = ofTotal(t.tilesDone, t.tilesTotal, t.percentDone, t.state, t.state === 'aborted')
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

/**
 * The answer to a kill, as text: GeoWebCache's HTML fragment (kept byte for byte on the wire, as
 * clients parse it) runs two sentences together ("...all tasks.Terminated tasks:"); the page puts
 * a space between sentences, outside the task items (a layer name may hold ".X").
 */
function killSummary (html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html')
  const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT)
  const parts: string[] = []
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent ?? ''
    parts.push(n.parentElement?.closest('li') ? text : text.replace(/([.:])(?=\p{Lu})/gu, '$1 '))
  }
  return parts.join(' ').replace(/\s+/g, ' ').trim()
}

async function kill (form: Record<string, string>, layer?: string) {
  const url = layer ? `${CACHE}/seed/${encodeURIComponent(layer)}` : `${CACHE}/seed`
  try {
    const res = await call(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() })
    say(killSummary(await res.text()))
  } catch (err) { sayError(err) }
}

export function startTasks () {
  $('tasks').addEventListener('click', (ev) => {
    const b = (ev.target as HTMLElement).closest<HTMLButtonElement>('button.kill')
    if (b) void kill({ kill_thread: '1', thread_id: b.dataset.task! }, b.dataset.layer)
  })
  $('kill-all').addEventListener('click', () => { void kill({ kill_all: 'all' }) })
  $('kill-layer').addEventListener('click', () => {
    const layer = $<HTMLSelectElement>('seed-layer').value
    if (layer) void kill({ kill_all: 'all' }, layer)
  })
  watchTasks()
  renderTasks()
}
