// App-schema data stores: uploads (one mapping file or a ZIP), the offline check, the catalog rows
// and the stored files. Files of one upload live in their own version directory,
// `<dataDir>/appschema/<ws>/<store>/<version>/`; an upload is staged under `<dataDir>/tmp`,
// checked there, renamed into place, and only then does the catalog transaction point the store
// at it. A failed upload therefore changes nothing, and a crash leaves at worst an unreferenced
// version directory that the next start removes.
import fs from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import type { WorkspaceService } from '../catalog/workspaces.js'
import { checkName, MAX_FILE_NAME_BYTES } from '../files/names.js'
import { extractZip, type ZipLimits } from '../files/zip.js'
import { fsyncTree, renameDurable, withStaging, within, writeFileAtomic } from '../files/atomic.js'
import { createKeyedQueue } from '../keyed-queue.js'
import {
  DataStoreNotEmpty, DataStoreNotFound, DifferentFeatureTypes, FeatureTypeNameTaken, FeatureTypeNotFound,
  InvalidConfigure, InvalidMapping, NoAppSchemaFile, NotAnAppSchemaStore
} from '../errors.js'
import { checkMapping, type FeatureTypeReport, type MappingReport } from './mapping.js'
import { STORE_TYPE, type AppSchemaStore, type FeatureTypeRow, type StoreConfig, type StoreRow } from './store.js'
import type { SourceCheck } from './serving.js'

export type Configure = 'first' | 'all' | 'none'

export function parseConfigure (value: unknown): Configure {
  if (value === undefined || value === '') return 'first'
  if (typeof value === 'string' && ['first', 'all', 'none'].includes(value.toLowerCase())) return value.toLowerCase() as Configure
  throw InvalidConfigure(JSON.stringify(String(value)))
}

export interface UploadInput {
  workspace: string
  store: string
  configure: Configure
  /** A single mapping file's text, saved as `filename` (default `<store>.appschema`). */
  text?: string
  filename?: string
  /** A ZIP archive on disk holding the main `.appschema` file and everything it references. */
  zipPath?: string
}

export interface UploadResult { created: boolean, configured: string[], report: MappingReport }

export interface AppSchemaDeps {
  store: AppSchemaStore
  dataDir: string
  zipLimits: ZipLimits
  workspaces: WorkspaceService
  /** Clock for version directory names. */
  now?: () => number
  /** Connects to the staged mapping's sources and reads each sourceType: the problems, by store. */
  checkSources?: (stage: string, mainFile: string) => Promise<SourceCheck>
}

export function createAppSchemaService ({ store: rows, dataDir, zipLimits, workspaces, now = Date.now, checkSources }: AppSchemaDeps) {
  const filesRoot = path.join(dataDir, 'appschema')
  const cacheDir = path.join(dataDir, 'app-schema-cache')
  /**
   * Runs uploads and deletes of one workspace one after the other: feature type names are unique
   * per workspace, so two stores of a workspace must not pick names at the same time.
   */
  const serialized = createKeyedQueue()

  const requireStore = async (ws: string, name: string): Promise<StoreRow> => {
    await workspaces.get(ws)
    const row = await rows.getStore(ws, name)
    if (!row || row.kind !== 'data') throw DataStoreNotFound(ws, name)
    return row
  }

  const mainFileOf = async (stage: string, zipPath: string): Promise<string> => {
    const entries = await extractZip(zipPath, stage, zipLimits)
    const candidates = entries.map((e) => e.name).filter((n) => n.toLowerCase().endsWith('.appschema'))
      .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0))
    if (candidates.length === 0) throw NoAppSchemaFile()
    return candidates[0]
  }

  const resourceNames = async (ws: string, fts: FeatureTypeReport[], existing: Map<string, FeatureTypeRow>) => {
    const taken = new Set<string>()
    const names: string[] = []
    next: for (const ft of fts) {
      const old = existing.get(ft.name)
      if (old) { taken.add(old.name); names.push(old.name); continue }
      for (const candidate of [ft.name, ...Array.from({ length: 9 }, (_, i) => `${ft.name}${i + 1}`)]) {
        // GeoServer's CatalogBuilder appends 1..9 when the name is used in the namespace.
        if (!taken.has(candidate) && await rows.resourceOwner(ws, candidate) === undefined) { taken.add(candidate); names.push(candidate); continue next }
      }
      throw FeatureTypeNameTaken(ft.name, ft.name, ft.name, ws)
    }
    return names
  }

  const toRow = (ws: string, store: string, name: string, ft: FeatureTypeReport): FeatureTypeRow => ({
    workspace: ws,
    store,
    name,
    nativeName: ft.name,
    title: ft.name,
    ...(ft.srs ? { srs: ft.srs } : {}),
    ...(ft.latLonBbox ? { bbox: ft.latLonBbox } : {}),
    config: {
      targetElement: ft.targetElement,
      namespaceUri: ft.namespaceUri,
      sourceDataStore: ft.sourceDataStore,
      sourceType: ft.sourceType,
      ...(ft.nativeBbox ? { nativeBbox: ft.nativeBbox } : {}),
      ...(ft.geometry ? { mappedGeometry: ft.geometry } : {}),
      attributes: ft.attributes
    }
  })

  const upload = async (input: UploadInput): Promise<UploadResult> => {
    const ws = await workspaces.get(input.workspace)
    const store = checkName(input.store, 'data store')
    const filename = input.text !== undefined ? checkName(input.filename ?? `${store}.appschema`, 'mapping file', MAX_FILE_NAME_BYTES) : undefined
    return serialized(ws.name, async () => {
      const existing = await rows.getStore(ws.name, store)
      if (!existing) await rows.checkNewStoreName(ws.name, store)
      if (existing && existing.type !== STORE_TYPE) throw NotAnAppSchemaStore(store, ws.name)
      return withStaging(dataDir, 'appschema', async (stage) => {
        let placed: string | undefined
        try {
          let mainFile: string
          if (input.zipPath !== undefined) mainFile = await mainFileOf(stage, input.zipPath)
          else {
            mainFile = filename!
            await writeFileAtomic(path.join(stage, mainFile), input.text ?? '')
          }
          const report = await checkMapping({ uploadRoot: stage, mainFile, cacheDir })
          // Creating or updating the store connects to its sources: one that cannot be read is named.
          const read = checkSources ? await checkSources(stage, mainFile) : { problems: [], types: [] }
          const unreadable = read.problems
          if (unreadable.length > 0) {
            throw InvalidMapping(unreadable.length, unreadable.length === 1 ? '' : 's', unreadable.map((p) => `- ${p.file}: ${p.element}: ${p.message}`).join('\n'))
          }
          for (const s of report.sources) if (checkSources) s.checked = true
          // The sources' own CRS and bounds (databases too, not only property files) and the mapped
          // geometry: capabilities show real boxes, and a type with a geometry is a map layer.
          for (const ft of report.featureTypes) {
            const got = read.types.find((t) => t.targetElement === ft.targetElement && t.mappingName === ft.mappingName)
            if (!got) continue
            ft.geometry = got.geometry
            if (ft.srs === undefined && got.srs) ft.srs = got.srs
            if (ft.nativeBbox === undefined && got.nativeBbox) ft.nativeBbox = got.nativeBbox
            if (ft.latLonBbox === undefined && got.latLonBbox) ft.latLonBbox = got.latLonBbox
          }
          const names = report.featureTypes.map((f) => f.name)
          if (existing) {
            const old = existing.config.featureTypeNames
            const same = old.length === names.length && [...old].sort().join('\n') === [...names].sort().join('\n')
            if (!same) throw DifferentFeatureTypes(names.join(', '), store, old.join(', '), `/rest/workspaces/${ws.name}/datastores/${store}`)
          }
          const wanted = input.configure === 'none' ? [] : input.configure === 'first' ? report.featureTypes.slice(0, 1) : report.featureTypes
          const current = new Map(existing ? (await rows.featureTypes(ws.name, store)).map((r) => [r.nativeName, r]) : [])
          const resNames = await resourceNames(ws.name, wanted, current)
          const insert: FeatureTypeRow[] = []
          const update: FeatureTypeRow[] = []
          wanted.forEach((ft, i) => (current.has(ft.name) ? update : insert).push(toRow(ws.name, store, resNames[i], ft)))

          await fsyncTree(stage)
          const version = `${now().toString(36)}-${randomBytes(4).toString('hex')}`
          const dirRel = path.posix.join('appschema', ws.name, store, version)
          placed = within(dataDir, dirRel)
          await renameDurable(stage, placed)
          const config: StoreConfig = {
            url: pathToFileURL(path.join(placed, mainFile)).href.replace(/^file:\/\//, 'file:'),
            namespace: ws.namespaceUri,
            dir: dirRel,
            mainFile,
            featureTypeNames: names,
            geometryNames: report.featureTypes.filter((f) => f.attributes.some((a) => a.binding === 'org.locationtech.jts.geom.Geometry')).map((f) => f.name),
            sources: report.sources
          }
          await rows.save(ws.name, store, config, !existing, { insert, update })
          placed = undefined // committed: the new files are the store's now
          if (existing && existing.config.dir !== dirRel) await removeQuietly(within(dataDir, existing.config.dir))
          return { created: !existing, configured: resNames, report }
        } finally {
          if (placed) await fs.rm(placed, { recursive: true, force: true })
        }
      })
    })
  }

  const removeQuietly = async (dir: string) => { await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined) }

  /** Walks a store's files: upload-relative names, sorted. */
  const listFiles = async (dir: string, prefix = ''): Promise<string[]> => {
    const out: string[] = []
    for (const e of (await fs.readdir(path.join(dir, prefix), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name
      if (e.isDirectory()) out.push(...await listFiles(dir, rel))
      else if (e.isFile()) out.push(rel)
    }
    return out
  }

  return {
    upload,
    async getStore (ws: string, name: string): Promise<StoreRow> { return requireStore(ws, name) },
    async list (ws: string): Promise<string[]> {
      await workspaces.get(ws)
      return await rows.dataStoreNames(ws)
    },
    async featureTypes (ws: string, store: string): Promise<FeatureTypeRow[]> {
      await requireStore(ws, store)
      return await rows.featureTypes(ws, store)
    },
    /**
     * GeoServer's `featuretypes?list=`: `available` = exposed by the mapping and not configured,
     * `available_with_geom` = those with a geometry property, `all` = every name the mapping exposes.
     */
    async featureTypeNames (ws: string, store: string, list: 'available' | 'available_with_geom' | 'all'): Promise<string[]> {
      const row = await requireStore(ws, store)
      const names = row.config.featureTypeNames ?? []
      if (list === 'all') return names
      const configured = new Set((await rows.featureTypes(ws, store)).map((f) => f.nativeName))
      const geometry = new Set(row.config.geometryNames ?? [])
      return names.filter((n) => !configured.has(n) && (list === 'available' || geometry.has(n)))
    },
    async featureType (ws: string, store: string, name: string): Promise<FeatureTypeRow> {
      await requireStore(ws, store)
      const ft = await rows.featureType(ws, store, name)
      if (!ft) throw FeatureTypeNotFound(ws, store, name)
      return ft
    },
    /** The stored files of a store: absolute directory and relative names. */
    async files (ws: string, store: string): Promise<{ dir: string, files: string[] }> {
      const row = await requireStore(ws, store)
      if (row.type !== STORE_TYPE) throw DataStoreNotFound(ws, store)
      const dir = within(dataDir, row.config.dir)
      return { dir, files: await listFiles(dir) }
    },
    async remove (ws: string, store: string, recurse: boolean): Promise<void> {
      await workspaces.get(ws)
      return serialized(ws, async () => {
        const row = await rows.getStore(ws, store)
        if (!row || row.kind !== 'data') throw DataStoreNotFound(ws, store)
        if (!recurse && (await rows.featureTypes(ws, store)).length > 0) throw DataStoreNotEmpty()
        await rows.deleteStore(ws, store)
        if (row.type === STORE_TYPE) await removeQuietly(within(filesRoot, ws, store))
      })
    },
    /** Workspace removed with recurse: its rows are gone by cascade, the files go here. */
    async removeWorkspaceFiles (ws: string): Promise<void> {
      await removeQuietly(within(filesRoot, ws))
    },
    /**
     * The admin page's list: every app-schema feature type, by store, with its target element, the
     * source data store and sourceType it is read from, its mapped geometry (then it is a map layer)
     * and its CRS and lon/lat bounds.
     */
    async overview (): Promise<Array<{ workspace: string, store: string, enabled: boolean, featureTypes: Array<{ name: string, targetElement: string, sourceDataStore: string, sourceType: string, dbtype: string, geometry: string | null, srs: string | null, bbox: number[] | null }> }>> {
      const out = []
      for (const st of await rows.appSchemaStores()) {
        const kinds = new Map(st.config.sources.map((src) => [src.id, src.kind === 'property' ? 'properties' : src.dbtype ?? src.kind]))
        out.push({
          workspace: st.workspace,
          store: st.name,
          enabled: st.enabled,
          featureTypes: (await rows.featureTypes(st.workspace, st.name)).map((ft) => ({
            name: `${ft.workspace}:${ft.name}`,
            targetElement: ft.config.targetElement,
            sourceDataStore: ft.config.sourceDataStore,
            sourceType: ft.config.sourceType,
            dbtype: kinds.get(ft.config.sourceDataStore) ?? 'unknown',
            geometry: ft.config.mappedGeometry ?? null,
            srs: ft.srs ?? null,
            bbox: ft.bbox ?? null
          }))
        })
      }
      return out.sort((a, b) => a.workspace < b.workspace ? -1 : a.workspace > b.workspace ? 1 : a.store < b.store ? -1 : a.store > b.store ? 1 : 0)
    },
    /** At start: removes version directories no store points at (a crash between rename and commit). */
    async sweep (): Promise<number> {
      const keep = new Set((await rows.appSchemaStores()).map((s) => s.config.dir))
      let removed = 0
      for (const ws of await fs.readdir(filesRoot).catch(() => [] as string[])) {
        for (const store of await fs.readdir(path.join(filesRoot, ws)).catch(() => [] as string[])) {
          const storeDir = path.join(filesRoot, ws, store)
          const versions = await fs.readdir(storeDir).catch(() => [] as string[])
          for (const v of versions) {
            if (!keep.has(path.posix.join('appschema', ws, store, v))) { await removeQuietly(path.join(storeDir, v)); removed++ }
          }
          if ((await fs.readdir(storeDir).catch(() => [])).length === 0) await removeQuietly(storeDir)
        }
        if ((await fs.readdir(path.join(filesRoot, ws)).catch(() => [])).length === 0) await removeQuietly(path.join(filesRoot, ws))
      }
      return removed
    }
  }
}
export type AppSchemaService = ReturnType<typeof createAppSchemaService>
