// The browsable page of the OpenAPI document ({base}/rest/openapi.json): operations grouped by
// tag, each with its parameters, request body and responses; a filter box. No swagger-ui needed.
import { BASE } from './http.js'
import { el } from './dom.js'

const SPEC = `${BASE}/rest/openapi.json`
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']

interface Operation { summary?: string, description?: string, tags?: string[], parameters?: unknown[], requestBody?: unknown, responses?: unknown, security?: unknown[] }
interface Spec { info: { title: string, version: string, description?: string }, paths: Record<string, Record<string, Operation>> }

function render (spec: Spec, filter: string) {
  const byTag = new Map<string, HTMLElement[]>()
  const f = filter.trim().toLowerCase()
  let count = 0
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of METHODS) {
      const op = item[method]
      if (!op) continue
      const tag = op.tags?.[0] ?? 'other'
      if (f && !`${method} ${path} ${tag} ${op.summary ?? ''}`.toLowerCase().includes(f)) continue
      count++
      const details = el('details', { class: 'op' })
      details.dataset.path = path
      details.dataset.method = method
      details.append(el('summary', {}, el('span', { class: `method ${method}` }, method.toUpperCase()), path, op.summary ? ` — ${op.summary}` : ''))
      if (op.description) details.append(el('p', {}, op.description))
      const parts: Record<string, unknown> = {}
      if (op.parameters?.length) parts.parameters = op.parameters
      if (op.requestBody) parts.requestBody = op.requestBody
      if (op.responses) parts.responses = op.responses
      details.append(el('pre', {}, JSON.stringify(parts, null, 2)))
      byTag.set(tag, [...(byTag.get(tag) ?? []), details])
    }
  }
  const out = document.getElementById('api')!
  out.replaceChildren(...[...byTag.keys()].sort().flatMap((tag) => [el('h2', {}, `${tag} (${byTag.get(tag)!.length})`), ...byTag.get(tag)!]))
  out.dataset.operations = String(count)
}

async function start () {
  ;(document.getElementById('raw') as HTMLAnchorElement).href = SPEC
  const res = await fetch(SPEC, { credentials: 'same-origin' })
  if (!res.ok) throw new Error(`${SPEC}: ${res.status}`)
  const spec = await res.json() as Spec
  document.getElementById('api-info')!.textContent = `${spec.info.title} ${spec.info.version}. ${spec.info.description ?? ''}`
  const input = document.getElementById('api-filter') as HTMLInputElement
  input.addEventListener('input', () => render(spec, input.value))
  render(spec, '')
  document.body.dataset.ready = 'true'
}

start().catch((err) => { document.getElementById('api-info')!.textContent = (err as Error).message })
