// Coverages of a mosaic store: list, configure from the index (POST), read, partial update (PUT,
// e.g. enabling the time dimension the way GeoServer clients do).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Link, type Document, type Value } from '../infra/representation.js'
import { bodyRoot, suffixed } from '../infra/routes.js'
import { asArray } from '../../services/files/xml.js'
import { InvalidCoverage } from '../../services/errors.js'
import { bandNames, type CoverageRow } from '../../services/mosaics/catalog-rows.js'
import type { MosaicRecord } from '../../services/mosaics/granule-index.js'

const COVERAGES = '/workspaces/:ws/coveragestores/:store/coverages'
type Params = { ws: string, store: string, c: string }

const DIMENSION_TYPES: Record<string, string> = {
  Byte: 'UNSIGNED_8BITS', Int8: 'SIGNED_8BITS', UInt16: 'UNSIGNED_16BITS', Int16: 'SIGNED_16BITS',
  UInt32: 'UNSIGNED_32BITS', Int32: 'SIGNED_32BITS', Float32: 'REAL_32BITS', Float64: 'REAL_64BITS'
}


function bool (v: unknown): boolean | undefined {
  if (v === true || v === 'true') return true
  if (v === false || v === 'false') return false
  if (v === undefined || v === '') return undefined
  throw InvalidCoverage(`expected true or false, got ${JSON.stringify(String(v).slice(0, 20))}`)
}

function bboxDoc (b: [number, number, number, number] | null, crs: string | null) {
  if (!b) return undefined
  return { minx: b[0], maxx: b[2], miny: b[1], maxy: b[3], crs: crs ?? undefined }
}

export default async function coverages (app: FastifyInstance) {
  const { mosaics, urls } = app

  const coverageDoc = (req: FastifyRequest, c: CoverageRow, mosaic: MosaicRecord): Document => {
    const entries: Value[] = []
    const dims: Array<['time' | 'elevation', string | undefined]> = [['time', mosaic.settings.timeAttribute], ['elevation', mosaic.settings.elevationAttribute]]
    for (const [dim, attr] of dims) {
      if (!attr) continue
      const info = c.config.dimensionInfo?.[dim] ?? {}
      entries.push({
        '@key': dim,
        dimensionInfo: {
          enabled: c.config.dimensions[dim],
          attribute: attr,
          presentation: String(info.presentation ?? 'LIST'),
          units: String(info.units ?? (dim === 'time' ? 'ISO8601' : 'EPSG:5030')),
          unitSymbol: dim === 'elevation' ? String(info.unitSymbol ?? 'm') : undefined,
          defaultValue: { strategy: dim === 'time' ? 'MAXIMUM' : 'MINIMUM' }
        }
      })
    }
    return {
      coverage: {
        name: c.name,
        nativeName: c.nativeName,
        namespace: { name: c.workspace, href: new Link(urls.rest(req, 'namespaces', c.workspace)) },
        title: c.title ?? c.name,
        abstract: c.config.abstract,
        nativeCRS: c.srs ?? undefined,
        srs: c.srs ?? undefined,
        nativeBoundingBox: bboxDoc(c.config.nativeBbox, c.srs),
        latLonBoundingBox: bboxDoc(c.bbox, 'EPSG:4326'),
        projectionPolicy: 'REPROJECT_TO_DECLARED',
        enabled: c.config.enabled !== false,
        metadata: entries.length ? { entry: entries } : undefined,
        store: { '@class': 'coverageStore', name: `${c.workspace}:${c.store}`, href: new Link(urls.rest(req, 'workspaces', c.workspace, 'coveragestores', c.store)) },
        nativeFormat: 'ImageMosaic',
        dimensions: {
          coverageDimension: bandNames(c.config.bands).map((name, i) => ({
            name,
            description: `${name} of ${c.config.dataType}`,
            range: c.config.ranges[i] ? { min: c.config.ranges[i].min, max: c.config.ranges[i].max } : undefined,
            dimensionType: { name: DIMENSION_TYPES[c.config.dataType] ?? c.config.dataType }
          }))
        },
        nativeCoverageName: c.nativeName
      }
    }
  }

  for (const url of suffixed(COVERAGES)) {
    app.get(url, async (req, reply) => {
      const { ws, store } = req.params as Params
      const list = await mosaics.listCoverages(ws, store)
      return reply.resource({
        coverages: {
          coverage: list.map((c) => ({ name: c.name, href: new Link(urls.rest(req, 'workspaces', ws, 'coveragestores', store, 'coverages', c.name), 'application/atom+xml') }))
        }
      })
    })
    app.post(url, async (req, reply) => {
      const { ws, store } = req.params as Params
      const c = await mosaics.addCoverage(ws, store, bodyRoot(req.body, 'coverage'))
      return reply.code(201).header('Location', urls.rest(req, 'workspaces', ws, 'coveragestores', store, 'coverages', c.name))
        .type('text/plain').send(c.name)
    })
  }

  // All coverages of a workspace (GeoServer's CoverageController without a store), and each by name.
  for (const url of suffixed('/workspaces/:ws/coverages')) {
    app.get(url, async (req, reply) => {
      const { ws } = req.params as Params
      const list = await mosaics.listWorkspaceCoverages(ws)
      return reply.resource({
        coverages: { coverage: list.map((c) => ({ name: c.name, href: new Link(urls.rest(req, 'workspaces', ws, 'coverages', c.name), 'application/atom+xml') })) }
      })
    })
  }
  app.get('/workspaces/:ws/coverages/:c', async (req, reply) => {
    const { ws, c } = req.params as Params
    const { coverage, mosaic } = await mosaics.getWorkspaceCoverage(ws, c)
    return reply.resource(coverageDoc(req, coverage, mosaic))
  })

  app.get(`${COVERAGES}/:c`, async (req, reply) => {
    const { ws, store, c } = req.params as Params
    const { coverage, mosaic } = await mosaics.getCoverage(ws, store, c)
    return reply.resource(coverageDoc(req, coverage, mosaic))
  })

  app.put(`${COVERAGES}/:c`, async (req, reply) => {
    const { ws, store, c } = req.params as Params
    const body = bodyRoot(req.body, 'coverage')
    if (body.name !== undefined && body.name !== c) throw InvalidCoverage('renaming a coverage is not supported')
    const dimensions: Record<string, { enabled: boolean, info: Record<string, unknown> }> = {}
    const entries = body.metadata && typeof body.metadata === 'object' ? asArray(body.metadata.entry) : []
    for (const e of entries as any[]) {
      const key = e?.$?.key ?? e?.['@key']
      const info = e?.dimensionInfo
      if (typeof key !== 'string' || !info || typeof info !== 'object') continue
      const enabled = bool(info.enabled)
      dimensions[key] = {
        enabled: enabled ?? true,
        info: Object.fromEntries(['presentation', 'units', 'unitSymbol'].filter((k) => typeof info[k] === 'string').map((k) => [k, info[k]]))
      }
    }
    await mosaics.updateCoverage(ws, store, c, {
      title: typeof body.title === 'string' ? body.title : undefined,
      abstract: typeof body.abstract === 'string' ? body.abstract : undefined,
      enabled: bool(body.enabled),
      dimensions
    })
    return reply.code(200).send()
  })
}
