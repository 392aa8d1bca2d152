// GeoWebCache's seed API (SeedRestlet: 200 with an empty body for a request, long-array-array lists):
// seed/reseed/truncate requests, task lists, kill_all, 405s; plus a per-task resource and a
// server-sent-events stream of task progress. Mounted twice (tilecache and gwc): all state lives
// in app.tileCache, whose facade is the only way in (never its breeder).
import { stringifyExact } from '../../services/exact-json.js'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { bodyRoot, type TypedApp } from '../infra/routes.js'
import { AreaBody, AreaQuery, LayerParams, SeedBody, TaskParams, responses } from '../../schemas/seed.js'
import { toXml } from '../infra/representation.js'
import { escapeXml } from '../../services/xml-escape.js'
import { onlyFields } from '../../services/body-fields.js'
import { KillAllInvalid, MethodNotAllowed, SeedTaskNotFound, ThreadIdInvalid, UnknownTileLayer } from '../../services/errors.js'
import { rowOf, type Task } from '../../services/seed/task.js'
import type { KillCode } from '../../services/tilecache/tile-cache.js'
import exportRoutes from './export.js'

/** `long[][]` as GWC's XStream writes it (2-space indent, no declaration; empty = `<long-array-array/>`). */
export function taskListXml (tasks: Task[]): string {
  return toXml({ 'long-array-array': { 'long-array': tasks.map((t) => ({ long: rowOf(t) })) } })
}
/** JSON numbers, never strings; a single task is still `[[...]]`. */
export function taskListJson (tasks: Task[]): string {
  return `{"long-array-array":[${tasks.map((t) => `[${rowOf(t).join(',')}]`).join(',')}]}`
}

function sendList (reply: FastifyReply, format: string | undefined, tasks: Task[]) {
  if (format === 'xml') return reply.type('application/xml').send(taskListXml(tasks))
  return reply.type('application/json; charset=utf-8').send(taskListJson(tasks))
}

const KILL_CODES: Record<string, KillCode> = { running: 'running', 1: 'running', pending: 'pending', all: 'all' }

const field = (body: unknown, name: string): string | undefined => {
  const raw = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined
  return typeof raw === 'string' ? raw : Array.isArray(raw) ? raw.map(String).join(',') : undefined
}

function killCode (body: unknown): KillCode {
  const value = field(body, 'kill_all') ?? ''
  const code = KILL_CODES[value.toLowerCase()]
  if (!code) throw KillAllInvalid(value)
  return code
}

const isSeedBody = (req: FastifyRequest) => req.formatFromSuffix || /^(application\/json|application\/xml|text\/xml)\b/i.test(req.headers['content-type'] ?? '')
// Refused in onRequest, before any body is read or parsed.
const refuse = async (req: FastifyRequest) => { throw MethodNotAllowed(req.method) }
const notAllowed = { onRequest: refuse, schema: { summary: 'Not allowed: answers 405 (as GeoWebCache)' } }
const never = async () => {}

export default async function seed (app: TypedApp) {
  const cache = app.tileCache
  const escape = (s: string) => escapeXml(s, { apostrophe: false })

  /**
   * One `Link: <.../seed/tasks/<id>.json>; rel="item"` header per task a seed POST created (RFC 8288;
   * "item", RFC 6573: a member of the collection the request was sent to). GWC's POST says nothing
   * (GWC issue #1112, "Can REST API seed return Task ID"); the status and the empty body stay as
   * GWC's, and a request with threadCount N makes N tasks, which one Location
   * header could not name. The link is under the prefix the request came in by (tilecache or gwc).
   */
  const taskLinks = (req: FastifyRequest, tasks: Task[]): string[] =>
    tasks.map((t) => `<${app.urls.absolute(req, `${app.prefix}/seed/tasks/${t.id}.json`)}>; rel="item"`)

  /** The layer of a kill request, once the principal may write it. */
  async function writableLayer (req: FastifyRequest, layer: string): Promise<string> {
    const l = await cache.seedLayer(layer)
    app.layerAccess.check(req.principal, l.workspace, l.name, 'w', { notFound: () => UnknownTileLayer(layer) })
    return l.qualifiedName
  }

  async function kill (req: FastifyRequest, reply: FastifyReply, layer?: string) {
    // GWC's two kill forms carry these fields and no other; one more would be dropped unread.
    if (req.body && typeof req.body === 'object') onlyFields(req.body as Record<string, unknown>, 'the kill form', ['kill_all', 'kill_thread', 'thread_id'])
    if (layer !== undefined && field(req.body, 'kill_thread') !== undefined) {
      // GWC's kill_thread form (SeedController.handleKillThreadPost): 200 and an HTML line either
      // way; only a task of the layer in the path is killed. The id is checked before the layer,
      // so a garbage id is a 400 whatever the layer (GWC: a 500).
      const thread = field(req.body, 'thread_id') ?? ''
      if (!/^\d{1,15}$/.test(thread)) throw ThreadIdInvalid(JSON.stringify(thread.slice(0, 40)))
      const hit = await cache.killTask(Number(thread), await writableLayer(req, layer))
      const line = hit
        ? `Requested to terminate task ${thread}.`
        : `Sorry, either task ${thread} has not started yet, or it is a truncate task that cannot be interrutped.`
      return reply.type('text/html; charset=utf-8').send(`<ul><li>${line}</li></ul>`)
    }
    const code = killCode(req.body)
    if (layer) await writableLayer(req, layer)
    const killed = await cache.killTasks(code, layer)
    const items = killed.map(({ task, was }) => `<li>[${task.id}: ${escape(task.layer)}, ${task.type.toUpperCase()}, ${was.toUpperCase()}]</li>`).join('')
    return reply.type('text/html; charset=utf-8')
      .send(`<p>Requested to terminate ${code} tasks.Terminated tasks: <ul>${items}</ul></p>`)
  }

  // All layers: GET seed.json (and seed.xml); POST seed = kill_all; the rest 405.
  app.get('/seed.json', { schema: { summary: 'Pending and running tasks of all layers, as [done, total, remaining, id, status] rows', response: responses.tasks } }, async (req, reply) => sendList(reply, 'json', cache.tasks()))
  app.get('/seed.xml', { schema: { summary: 'Pending and running tasks of all layers, as [done, total, remaining, id, status] rows', response: responses.tasks } }, async (req, reply) => sendList(reply, 'xml', cache.tasks()))
  app.post('/seed', { schema: { summary: 'Kill tasks of all layers (kill_all=running|pending|all)' } }, async (req, reply) => kill(req, reply))
  for (const url of ['/seed.json', '/seed.xml']) {
    app.post(url, notAllowed, never)
    app.put(url, notAllowed, never)
    app.delete(url, notAllowed, never)
  }
  app.get('/seed', notAllowed, never)
  app.put('/seed', notAllowed, never)
  app.delete('/seed', notAllowed, never)

  // One layer: the suffixed path is the task list and the seed request; unsuffixed POST is a
  // seed request by media type, else the kill form; GET/PUT/DELETE without suffix 405.
  app.get('/seed/:layer', { schema: { summary: 'Pending and running tasks of one layer (with a .json or .xml suffix)', params: LayerParams, response: responses.tasks } }, async (req, reply) => {
    if (!req.formatFromSuffix) throw MethodNotAllowed(req.method)
    const layer = await cache.seedLayer(req.params.layer)
    return sendList(reply, req.format, cache.tasks(layer.qualifiedName))
  })
  // Any logged-in user reaches it: writing a layer's cache needs w on the layer (or a on its
  // workspace, or ADMIN), checked by the tile cache's authorizer (security area).
  app.post('/seed/:layer', { schema: { summary: 'Seed, reseed or truncate a layer (a seedRequest body), or kill its tasks (a kill_all or kill_thread form)', params: LayerParams, body: SeedBody, response: responses.submitted }, config: { access: 'authenticated' } }, async (req, reply) => {
    if (!isSeedBody(req)) return kill(req, reply, req.params.layer)
    const tasks = await cache.submitSeed(req.params.layer, bodyRoot(req.body, 'seedRequest'), req.principal)
    return reply.code(200).header('link', taskLinks(req, tasks)).type('text/plain; charset=utf-8').send('')
  })
  // Beyond GWC: seed, reseed or truncate by a GeoJSON Polygon or MultiPolygon (and a reseed of
  // tiles older than a date); the same answer as the seed POST.
  app.post('/seed/:layer/area.json', {
    config: { access: 'authenticated' },
    schema: { summary: 'Seed, reseed or truncate the metatiles touching a GeoJSON Polygon or MultiPolygon ({ seedRequest, geometry, olderThan }); one Link rel="item" header per task', params: LayerParams, querystring: AreaQuery, body: AreaBody, response: responses.submitted }
  }, async (req, reply) => {
    const q = req.query.olderThan
    const olderThan = Array.isArray(q) ? q.join(',') : q
    const tasks = await cache.submitSeed(req.params.layer, req.body, req.principal, { olderThan })
    return reply.code(200).header('link', taskLinks(req, tasks)).type('text/plain; charset=utf-8').send('')
  })
  app.put('/seed/:layer', notAllowed, never)
  app.delete('/seed/:layer', notAllowed, never)

  // Beyond GWC: one task (kept an hour after it ends, ABORTED after a kill) and a progress stream.
  app.get('/seed/tasks/:id', { schema: { summary: 'One task: its own share of the work, the request\'s sum, state, rate and ETA (kept an hour after it ends)', params: TaskParams, response: responses.task } }, async (req, reply) => {
    // Not a task id at all: no task has it (nothing to look up).
    if (!/^\d{1,15}$/.test(req.params.id)) throw SeedTaskNotFound(req.params.id)
    const stored = await cache.taskView(Number(req.params.id))
    if (!stored) throw SeedTaskNotFound(req.params.id)
    const { error, ...view } = stored
    return reply.resource({ task: { ...view, error } })
  })
  await exportRoutes(app)

  const streams = new Set<import('node:http').ServerResponse>()
  app.addHook('preClose', async () => { for (const s of streams) s.end() })
  app.get('/seed/events', { schema: { summary: 'Task progress as server-sent events' } }, async (req, reply) => {
    reply.hijack()
    const res = reply.raw
    streams.add(res)
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' })
    res.write(': task progress of the tile cache\n\n') // sends the headers now
    const send = (view: unknown) => res.write(`event: task\ndata: ${stringifyExact(view)}\n\n`)
    // The tasks that ended within the hour (at most 20: a page opened now shows them as recent),
    // then the pending and running ones, then every change.
    const unfollow = cache.followTasks(send, 20)
    res.on('close', () => { unfollow(); streams.delete(res) })
  })
}
