// The granule index of a structured coverage: schema (index), granules as GML 2 / GeoJSON,
// one granule by fid, and deletes by ECQL filter or fid.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Link } from '../infra/representation.js'
import { suffixed, XML_FIRST, type TypedApp } from '../infra/routes.js'

// StructuredCoverageController produces XML first (index, granules, a granule): XML_FIRST.
import { CoverageParams, GranuleDeleteQuery, GranuleParams, GranulesQuery, responses } from '../../schemas/mosaics.js'
import { MethodNotAllowed } from '../../services/errors.js'
import type { Granule, MosaicRecord } from '../../services/mosaics/store.js'
import { granulesGeoJson, granulesGml } from './granule-bodies.js'

const INDEX = '/workspaces/:ws/coveragestores/:store/coverages/:c/index'

function one (v: unknown): string | undefined {
  if (Array.isArray(v)) return v.length ? String(v[v.length - 1]) : undefined
  return v === undefined ? undefined : String(v)
}

function send (req: FastifyRequest, reply: FastifyReply, r: { mosaic: MosaicRecord, granules: Granule[] }) {
  if (req.format === 'json') return reply.type('application/json; charset=utf-8').send(granulesGeoJson(r.mosaic, r.granules))
  return reply.type('application/xml').send(granulesGml(r.mosaic, r.granules))
}

export default async function granules (app: TypedApp) {
  const { mosaics, urls } = app
  const notAllowed = (method: string) => async () => { throw MethodNotAllowed(method) }

  for (const url of suffixed(INDEX)) {
    app.get(url, { schema: { summary: 'The granule index schema of a coverage', params: CoverageParams, response: responses.schema }, config: XML_FIRST }, async (req, reply) => {
      const { ws, store, c } = req.params
      const schema = await mosaics.indexSchema(ws, store, c)
      return reply.resource({
        Schema: {
          attributes: { Attribute: schema.map((a) => ({ name: a.name, minOccurs: 0, maxOccurs: 1, nillable: true, binding: a.binding })) },
          href: new Link(urls.rest(req, 'workspaces', ws, 'coveragestores', store, 'coverages', c, 'index', 'granules'))
        }
      })
    })
    for (const m of ['POST', 'PUT', 'DELETE'] as const) app.route({ schema: { summary: 'Not allowed: answers 405 (as GeoServer)' }, method: m, url, handler: notAllowed(m) })
  }

  for (const url of suffixed(`${INDEX}/granules`)) {
    app.get(url, { schema: { summary: 'Granules of a coverage as GeoJSON (filter=CQL, offset, limit)', params: CoverageParams, querystring: GranulesQuery, response: responses.granules }, config: XML_FIRST }, async (req, reply) => {
      const { ws, store, c } = req.params
      const q = req.query
      return send(req, reply, await mosaics.granules(ws, store, c, { filter: one(q.filter), offset: one(q.offset), limit: one(q.limit) }))
    })
    app.delete(url, { schema: { summary: 'Delete granules matching a filter (filter=INCLUDE for all)', params: CoverageParams, querystring: GranulesQuery } }, async (req, reply) => {
      const { ws, store, c } = req.params
      const q = req.query
      await mosaics.deleteGranules(ws, store, c, { filter: one(q.filter), purge: one(q.purge), offset: one(q.offset), limit: one(q.limit) })
      return reply.code(200).send()
    })
    for (const m of ['POST', 'PUT'] as const) app.route({ schema: { summary: 'Not allowed: answers 405 (as GeoServer)' }, method: m, url, handler: notAllowed(m) })
  }

  app.get(`${INDEX}/granules/:fid`, { schema: { summary: 'One granule as GeoJSON', params: GranuleParams, response: responses.granules }, config: XML_FIRST }, async (req, reply) => {
    const { ws, store, c, fid } = req.params
    return send(req, reply, await mosaics.granule(ws, store, c, fid))
  })
  app.delete(`${INDEX}/granules/:fid`, { schema: { summary: 'Delete one granule', params: GranuleParams, querystring: GranuleDeleteQuery } }, async (req, reply) => {
    const { ws, store, c, fid } = req.params
    await mosaics.deleteGranules(ws, store, c, { fid: fid, purge: one(req.query.purge) })
    return reply.code(200).send()
  })
}
