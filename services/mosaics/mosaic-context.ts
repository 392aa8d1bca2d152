// What the parts of the mosaic service share: their collaborators, the folders of a store, the one
// writer per store, the lookups that turn a missing workspace, store or coverage into its error,
// and the listeners told when what a mosaic's layers draw changed.
import path from 'node:path'
import type { WorkspaceService } from '../catalog/workspaces.js'
import type { ZipLimits } from '../files/zip.js'
import { createKeyedQueue } from '../keyed-queue.js'
import { NotStructured, CoverageNotFound, CoverageStoreNotFound, HarvestNotSupported, MosaicWorkspaceNotFound } from '../errors.js'
import { noFaults, type FaultPoint } from '../faults.js'
import { parseEcql } from '../filters/ecql.js'
import type { Filter } from '../filters/tree.js'
import { lonLat } from './coverage-extent.js'
import type { MosaicRecord, MosaicStore } from './store.js'
import type { RemoteFetch } from '../files/remote-fetch.js'

export interface MosaicServiceDeps {
  store: MosaicStore
  dataDir: string
  harvestRoots: string[]
  zipLimits: ZipLimits
  /** Fetches a url.* upload's http(s) URL into a file (services/files/remote-fetch.ts); without it, remote URLs are refused. */
  remoteFetch?: RemoteFetch
  workspaces: WorkspaceService
  /** Told which published layers a store deletion removed (their tiles and usage go too). */
  layersRemoved?: (qualifiedNames: string[]) => Promise<void>
  now?: () => Date
  log?: { warn (obj: object, msg: string): void }
  /** Crash-harness fault points (services/faults.ts). */
  fault?: FaultPoint
}

type Bbox = [number, number, number, number]
export type DataHook = (layers: string[], areas: Bbox[] | undefined, reason: string) => Promise<unknown>

export type MosaicContext = ReturnType<typeof createMosaicContext>

export function createMosaicContext (deps: MosaicServiceDeps) {
  const { store, dataDir } = deps
  // Told after what a mosaic's layers draw changed: the lon/lat boxes of the granules harvested or
  // deleted, or undefined for the whole layer (the tile cache drops the tiles concerned).
  const dataHooks: DataHook[] = []
  // One writer per store: uploads, harvests and deletes of a store run one after the
  // other, so two PUTs of the same store cannot interleave their renames and transactions.
  const queue = createKeyedQueue()

  async function requireWorkspace (ws: string) {
    if (!(await deps.workspaces.exists(ws))) throw MosaicWorkspaceNotFound(ws)
  }

  async function requireMosaic (ws: string, name: string, message = name): Promise<MosaicRecord> {
    await requireWorkspace(ws)
    const s = await store.store(ws, name)
    if (!s || s.kind !== 'coverage') throw CoverageStoreNotFound(message)
    const m = await store.getMosaic(ws, name)
    if (!m) throw HarvestNotSupported()
    return m
  }

  return {
    deps,
    store,
    dataDir,
    dataHooks,
    now: deps.now ?? (() => new Date()),
    fault: deps.fault ?? noFaults,
    storeDir: (ws: string, name: string) => path.join(dataDir, 'data', ws, name),
    // The folder of a store being replaced waits here (not under tmp/, which the start wipes) until
    // the new index is committed, so a crash mid-replace can put the old store back.
    asideDir: (ws: string, name: string) => path.join(dataDir, 'aside', ws, name),
    exclusive: <T>(ws: string, name: string, fn: () => Promise<T>): Promise<T> => queue(JSON.stringify([ws, name]), fn),
    requireWorkspace,
    requireMosaic,

    async requireCoverage (ws: string, name: string, coverage: string) {
      const mosaic = await requireMosaic(ws, name)
      const cov = await store.coverage(ws, name, coverage)
      if (!cov) throw CoverageNotFound(coverage)
      return { mosaic, coverage: cov }
    },

    /** A coverage whose granule index the REST API shows: a mosaic's, not a GeoTIFF store's. */
    async requireStructured (ws: string, name: string, coverage: string) {
      const mosaic = await requireMosaic(ws, name)
      const cov = await store.coverage(ws, name, coverage)
      if (!cov) throw CoverageNotFound(coverage)
      if (mosaic.settings.format !== undefined) throw NotStructured(`${ws}:${coverage}`)
      return { mosaic, coverage: cov }
    },

    async dataChanged (mosaic: MosaicRecord, granules: Array<{ bbox: Bbox }> | undefined, reason: string, only?: string) {
      if (dataHooks.length === 0) return
      const layers = only !== undefined ? [`${mosaic.workspace}:${only}`] : (await store.coverages(mosaic.workspace, mosaic.store)).map((c) => `${mosaic.workspace}:${c.name}`)
      if (layers.length === 0) return
      const areas = granules && mosaic.crs ? granules.map((g) => lonLat(g.bbox, mosaic.crs!)) : undefined
      if (granules && areas?.length === 0) return
      for (const hook of dataHooks) await hook(layers, areas, reason)
    },

    /** An ECQL filter over the mosaic's index attributes (its schema) and footprints (its CRS). */
    compile (mosaic: MosaicRecord, filter: string): Filter {
      return parseEcql(filter, { attributes: mosaic.settings.schema, crs: mosaic.crs ?? 'EPSG:4326' })
    }
  }
}
