// Coverages of a mosaic store: list, configure from the index (POST), read, partial update (PUT,
// e.g. enabling the time dimension the way GeoServer clients do).
import type { FastifyRequest } from 'fastify'
import { Link, type Document, type Value } from '../infra/representation.js'
import { bodyRoot, suffixed, type TypedApp } from '../infra/routes.js'
import { CoverageBody, CoverageParams, StoreParams, WsCoverageParams, WsParams, responses } from '../../schemas/mosaics.js'
import { coverageView } from '../../services/mosaics/coverage-fields.js'
import type { CoverageRow, MosaicRecord } from '../../services/mosaics/store.js'
import type { RootFields } from '../../schemas/common.js'

type CoverageFields = RootFields<typeof CoverageBody>

const COVERAGES = '/workspaces/:ws/coveragestores/:store/coverages'

export default async function coverages (app: TypedApp) {
  const { mosaics, urls } = app

  const coverageDoc = (req: FastifyRequest, c: CoverageRow, mosaic: MosaicRecord): Document => {
    const v = coverageView(c, mosaic)
    const entries: Value[] = [
      ...v.dimensionInfo.map(([dim, info]): Value => ({ '@key': dim, dimensionInfo: { ...info, defaultValue: { ...info.defaultValue } } })),
      ...v.metadata.map(([key, value]): Value => ({ '@key': key, $: value }))
    ]
    return {
      coverage: {
        name: v.name,
        nativeName: v.nativeName,
        namespace: { name: v.workspace, href: new Link(urls.rest(req, 'namespaces', v.workspace)) },
        title: v.title,
        abstract: v.abstract,
        keywords: v.keywords.length ? { string: v.keywords } : undefined,
        nativeCRS: v.nativeCRS,
        srs: v.srs,
        nativeBoundingBox: v.nativeBoundingBox,
        latLonBoundingBox: v.latLonBoundingBox,
        projectionPolicy: v.projectionPolicy,
        enabled: v.enabled,
        metadata: entries.length ? { entry: entries } : undefined,
        store: { '@class': 'coverageStore', name: `${v.workspace}:${v.store}`, href: new Link(urls.rest(req, 'workspaces', v.workspace, 'coveragestores', v.store)) },
        nativeFormat: v.nativeFormat,
        dimensions: { coverageDimension: v.bands.map((b) => ({ ...b })) },
        nativeCoverageName: v.nativeName
      }
    }
  }

  for (const url of suffixed(COVERAGES)) {
    app.get(url, { schema: { summary: 'List the coverages of a coverage store', params: StoreParams, response: responses.coverages } }, async (req, reply) => {
      const { ws, store } = req.params
      const list = await mosaics.listCoverages(ws, store)
      return reply.resource({
        coverages: {
          coverage: list.map((c) => ({ name: c.name, href: new Link(urls.rest(req, 'workspaces', ws, 'coveragestores', store, 'coverages', c.name), 'application/atom+xml') }))
        }
      })
    })
    app.post(url, { schema: { summary: 'Configure a coverage of the store', params: StoreParams, body: CoverageBody } }, async (req, reply) => {
      const { ws, store } = req.params
      const c = await mosaics.addCoverage(ws, store, bodyRoot<CoverageFields>(req.body, 'coverage'))
      return reply.code(201).header('Location', urls.rest(req, 'workspaces', ws, 'coveragestores', store, 'coverages', c.name))
        .type('text/plain').send(c.name)
    })
  }

  // All coverages of a workspace (GeoServer's CoverageController without a store), and each by name.
  for (const url of suffixed('/workspaces/:ws/coverages')) {
    app.get(url, { schema: { summary: 'List the coverages of a workspace', params: WsParams, response: responses.coverages } }, async (req, reply) => {
      const { ws } = req.params
      const list = await mosaics.listWorkspaceCoverages(ws)
      return reply.resource({
        coverages: { coverage: list.map((c) => ({ name: c.name, href: new Link(urls.rest(req, 'workspaces', ws, 'coverages', c.name), 'application/atom+xml') })) }
      })
    })
  }
  app.get('/workspaces/:ws/coverages/:c', { schema: { summary: 'A coverage, by its workspace-level link', params: WsCoverageParams, response: responses.coverage } }, async (req, reply) => {
    const { ws, c } = req.params
    const { coverage, mosaic } = await mosaics.getWorkspaceCoverage(ws, c)
    return reply.resource(coverageDoc(req, coverage, mosaic))
  })

  app.get(`${COVERAGES}/:c`, { schema: { summary: 'A coverage', params: CoverageParams, response: responses.coverage } }, async (req, reply) => {
    const { ws, store, c } = req.params
    const { coverage, mosaic } = await mosaics.getCoverage(ws, store, c)
    return reply.resource(coverageDoc(req, coverage, mosaic))
  })

  // GeoServer's PUT: the fields sent are applied, the others kept; one that cannot be applied is
  // a 400 naming it (services/mosaics/coverage-fields.ts).
  app.put(`${COVERAGES}/:c`, { schema: { summary: 'Change a coverage (title, band names, keywords, enabled, dimensions...)', params: CoverageParams, body: CoverageBody } }, async (req, reply) => {
    const { ws, store, c } = req.params
    await mosaics.updateCoverage(ws, store, c, bodyRoot<CoverageFields>(req.body, 'coverage'))
    return reply.code(200).send()
  })
}
