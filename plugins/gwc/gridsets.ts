// GeoWebCache's grid sets (GridSetController): GET gridsets lists them (XML with an atom link to each,
// or a JSON list of names) and GET gridsets/<name>.xml|.json shows one as GWC's XMLGridSet (srs,
// extent, alignTopLeft, resolutions, metersPerUnit, pixelSize, scaleNames, tile size,
// yCoordinateFirst), numbers written as Java's Double.toString writes them. PUT gridsets/<name> takes
// an XMLGridSet (XML or JSON) and answers 201 when it created the grid set, 200 when it replaced one,
// with an empty body, as GWC; DELETE answers 200, or 404 with GWC's message; built-in grid sets are
// 405. Bad fields are 400 naming them (services/tilecache/grid-set-definition.ts). Admin-only, as the
// rest of /gwc/rest.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { GridSet } from '../../services/tilecache/grid-sets.js'
import { escapeXml as esc } from '../infra/representation.js'
import { bodyRoot } from '../infra/routes.js'

/** Java's Double.toString: plain between 1e-3 and 1e7 (always with a fraction), else d.dddEn. */
export function javaDouble (n: number): string {
  const a = Math.abs(n)
  if (a === 0) return '0.0'
  if (a >= 1e-3 && a < 1e7) { const s = String(n); return s.includes('.') ? s : `${s}.0` }
  const [m, e] = n.toExponential().split('e')
  return `${m.includes('.') ? m : `${m}.0`}E${Number(e)}`
}

/** What GWC's XMLGridSet holds, in its order. */
function view (gs: GridSet) {
  return {
    name: gs.id,
    ...(gs.description !== undefined ? { description: gs.description } : {}),
    srs: { number: Number(gs.srs.split(':')[1]) },
    extent: { coords: gs.extent },
    alignTopLeft: gs.alignTopLeft,
    resolutions: gs.resolutions,
    metersPerUnit: gs.metersPerUnit,
    pixelSize: gs.pixelSize,
    scaleNames: gs.scaleNames ?? gs.resolutions.map((_, z) => `${gs.id}:${z}`),
    tileHeight: gs.tileHeight,
    tileWidth: gs.tileWidth,
    yCoordinateFirst: gs.yCoordinateFirst
  }
}

function gridSetXml (gs: GridSet): string {
  const v = view(gs)
  const d = (n: number, i: string) => `${i}<double>${javaDouble(n)}</double>`
  return ['<gridSet>', `  <name>${esc(v.name)}</name>`, ...(v.description !== undefined ? [`  <description>${esc(v.description)}</description>`] : []), '  <srs>', `    <number>${v.srs.number}</number>`, '  </srs>',
    '  <extent>', '    <coords>', ...v.extent.coords.map((n) => d(n, '      ')), '    </coords>', '  </extent>',
    `  <alignTopLeft>${v.alignTopLeft}</alignTopLeft>`, '  <resolutions>', ...v.resolutions.map((n) => d(n, '    ')), '  </resolutions>',
    `  <metersPerUnit>${javaDouble(v.metersPerUnit)}</metersPerUnit>`, `  <pixelSize>${javaDouble(v.pixelSize)}</pixelSize>`,
    '  <scaleNames>', ...v.scaleNames.map((s) => `    <string>${esc(s)}</string>`), '  </scaleNames>',
    `  <tileHeight>${v.tileHeight}</tileHeight>`, `  <tileWidth>${v.tileWidth}</tileWidth>`, `  <yCoordinateFirst>${v.yCoordinateFirst}</yCoordinateFirst>`,
    '</gridSet>'].join('\n')
}

export default async function gridsets (app: FastifyInstance) {
  const cache = app.tileCache
  const list = async (req: FastifyRequest, reply: FastifyReply, json: boolean) => {
    const names = cache.gridSetNames()
    if (json) return reply.type('application/json').send(JSON.stringify(names))
    const base = app.urls.absolute(req, `${app.prefix}/gridsets`)
    return reply.type('application/xml').send(['<gridSets>', ...names.map((n) => `  <gridSet>\n    <name>${esc(n)}</name>\n    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="${esc(`${base}/${encodeURIComponent(n)}.xml`)}" type="text/xml"/>\n  </gridSet>`), '</gridSets>'].join('\n'))
  }
  const nameOf = (req: FastifyRequest) => (req.params as { name: string }).name
  app.get('/gridsets', { schema: { summary: 'The grid sets (XML, as GeoWebCache lists them)' } }, async (req, reply) => await list(req, reply, false))
  app.get('/gridsets.xml', { schema: { summary: 'The grid sets (XML, as GeoWebCache lists them)' } }, async (req, reply) => await list(req, reply, false))
  app.get('/gridsets.json', { schema: { summary: 'The grid sets\' names (JSON)' } }, async (req, reply) => await list(req, reply, true))
  app.get('/gridsets/:name', { schema: { summary: 'One grid set as GeoWebCache\'s XMLGridSet (XML or JSON)' } }, async (req, reply) => {
    const gs = cache.gridSet(nameOf(req))
    if (req.format === 'json') return reply.type('application/json').send(JSON.stringify({ gridSet: view(gs) }))
    return reply.type('application/xml').send(gridSetXml(gs))
  })
  app.put('/gridsets/:name', { schema: { summary: 'Create (201) or replace (200) a custom grid set from an XMLGridSet (XML or JSON); built-in grid sets are 405' } }, async (req, reply) => {
    const { created } = await cache.putGridSet(nameOf(req), bodyRoot(req.body, 'gridSet'))
    return reply.code(created ? 201 : 200).type('text/plain; charset=utf-8').send('')
  })
  app.delete('/gridsets/:name', { schema: { summary: 'Delete a custom grid set, and its tiles from every layer; built-in grid sets are 405' } }, async (req, reply) => {
    await cache.deleteGridSet(nameOf(req))
    return reply.code(200).type('text/plain; charset=utf-8').send('')
  })
}
