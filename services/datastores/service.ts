// PostGIS data stores (GeoServer's DataStoreController for `dbtype=postgis`): create, read, change
// and delete, with the connection parameters checked, the password sealed with the master key and
// the database probed before anything is stored. A store that cannot connect is refused with the
// reason (host, port, authentication, database, PostGIS, schema): GeoServer accepts it and fails
// later at every use; here nothing is stored, and a PUT that would break a store changes nothing.
// Changes of one workspace run one at a time; the catalog's keys refuse what another node races.
import { checkName } from '../files/names.js'
import { createKeyedQueue } from '../keyed-queue.js'
import { checkFields, unifyShape } from '../body-fields.js'
import type { WorkspaceService } from '../catalog/workspaces.js'
import {
  DataStoreChangeRefused, DataStoreNotEmpty, DataStoreNotFound, DataStoreUnreachable, DataStoreWorkspaceMismatch,
  InvalidDataStore, UnsupportedDataStoreType
} from '../errors.js'
import { checkPostgisParams, connectionSettings, readParams, type ConnectionSettings, type Params } from './params.js'
import { ProbeFailure, probePostgis, type ProbeResult } from './probe.js'
import { POSTGIS_TYPE, type DataStoreConfig, type DataStoreRow, type DataStoreRows } from './store.js'
import {
  checkFileStoreParams, fileStoreKind, GEOPACKAGE_TYPE, SHAPEFILE_DIRECTORY_TYPE, SHAPEFILE_TYPE, type FileRoots, type FileStoreKind
} from './files.js'

/** The store types this service keeps: PostGIS, and the file stores (GeoPackage, Shapefile, a folder of shapefiles). */
export const VECTOR_STORE_TYPES = [POSTGIS_TYPE, GEOPACKAGE_TYPE, SHAPEFILE_TYPE, SHAPEFILE_DIRECTORY_TYPE]
/** The file kind of a stored type, undefined for PostGIS. */
export function fileKindOfType (type: string): FileStoreKind | undefined {
  if (type === GEOPACKAGE_TYPE) return 'geopkg'
  if (type === SHAPEFILE_TYPE || type === SHAPEFILE_DIRECTORY_TYPE) return 'shapefile'
  return undefined
}
const isVectorRow = (row: DataStoreRow | undefined): row is DataStoreRow => row !== undefined && row.kind === 'data' && VECTOR_STORE_TYPES.includes(row.type)

export interface Secrets {
  /** The plain text sealed as a `crypt2:` token. */
  sealSecret (plain: string): string
  /** The plain text of a token this key sealed, else undefined. */
  openSecret (token: string): string | undefined
}

export interface DataStoreDeps {
  rows: DataStoreRows
  workspaces: WorkspaceService
  secrets: Secrets
  probe?: (s: ConnectionSettings) => Promise<ProbeResult>
  now?: () => Date
  /** Told after a store changed or went away (its open connections are closed). */
  storeChanged?: (ws: string, name: string) => Promise<void>
  /** The qualified names of the layers published from a store (deleted with it by `recurse`). */
  layersOf?: (ws: string, name: string) => Promise<string[]>
  /** Told after layers were deleted with their store (the tile cache drops their files). */
  layersRemoved?: (names: string[]) => Promise<void>
  /** Where the files of GeoPackage and Shapefile stores may be (default: nowhere but the data directory "."). */
  fileRoots?: FileRoots
}

const PASSWORD = 'passwd'
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const shown = (v: unknown) => { const s = JSON.stringify(v) ?? String(v); return s.length > 64 ? s.slice(0, 64) + '...' : s }

/** Fields of a dataStore body; links and read-only fields of a GET may be sent back. */
const WRITABLE = ['name', 'description', 'type', 'enabled', 'workspace', 'connectionParameters', 'disableOnConnFailure', 'featureTypes', 'dateCreated']
const READ_ONLY = { __default: false, _default: false }

function bool (v: unknown, field: string): boolean {
  if (v === true || v === false) return v
  if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true'
  throw InvalidDataStore(`${field} must be true or false: ${shown(v)}`)
}

function workspaceName (v: unknown): string | undefined {
  if (v === undefined || v === '') return undefined
  if (typeof v === 'string') return v
  if (isObject(v) && typeof v.name === 'string') return v.name
  throw InvalidDataStore('workspace must name a workspace (<workspace><name>...</name></workspace>)')
}

function description (v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (typeof v !== 'string') throw InvalidDataStore('description must be text')
  if (v.length > 4096) throw InvalidDataStore('description is longer than 4096 characters')
  return v
}

export function createDataStoreService ({ rows, workspaces, secrets, probe = probePostgis, now = () => new Date(), storeChanged, layersOf, layersRemoved, fileRoots = { dataDir: '.', harvestRoots: [] } }: DataStoreDeps) {
  const serialized = createKeyedQueue()

  /** The parsed body: its fields unified across XML and JSON, unknown ones refused by name. */
  const readBody = (body: Record<string, unknown>) => {
    const b = unifyShape(body) as Record<string, unknown>
    checkFields(b, 'dataStore', WRITABLE, READ_ONLY)
    return b
  }

  /** The stored password token for a sent value: plain text is sealed, a token we sealed is kept. */
  const sealed = (value: string): string | undefined => {
    if (value === '') return undefined
    if (/^crypt[0-9]:/.test(value)) {
      if (secrets.openSecret(value) === undefined) throw InvalidDataStore('connection parameter "passwd" is an encrypted token this server cannot open (sealed by another server or key); send the password itself')
      return value
    }
    return secrets.sealSecret(value)
  }

  /** Probes the database of a store that is enabled; refuses it with the reason when it does not answer. */
  const checkConnection = async (name: string, params: Params) => {
    const token = params[PASSWORD]
    try {
      await probe(connectionSettings(params, token === undefined ? undefined : secrets.openSecret(token)))
    } catch (err) {
      if (err instanceof ProbeFailure) throw DataStoreUnreachable(name, err.reason)
      throw err
    }
  }

  const requireStore = async (ws: string, name: string): Promise<DataStoreRow> => {
    await workspaces.get(ws)
    const row = await rows.get(ws, name)
    if (!isVectorRow(row)) throw DataStoreNotFound(ws, name)
    return row
  }

  return {
    /** The PostGIS, GeoPackage or Shapefile store `name`, or undefined when the workspace has none of that name and type. */
    async find (ws: string, name: string): Promise<DataStoreRow | undefined> {
      const row = await rows.get(ws, name)
      return isVectorRow(row) ? row : undefined
    },

    async get (ws: string, name: string): Promise<DataStoreRow> { return requireStore(ws, name) },

    /** The store `name` of any kind and type (an app-schema store too), or undefined. */
    async anyStore (ws: string, name: string): Promise<DataStoreRow | undefined> { return await rows.get(ws, name) },

    /** POST: a new PostGIS store from a dataStore body's fields; returns its name. */
    async create (wsName: string, body: Record<string, unknown>): Promise<string> {
      const ws = await workspaces.get(wsName)
      const b = readBody(body)
      const given = workspaceName(b.workspace)
      if (given !== undefined && given !== ws.name) throw DataStoreWorkspaceMismatch(ws.name, given)
      if (b.name === undefined || b.name === '') throw InvalidDataStore('name is required')
      const name = checkName(b.name, 'data store')
      const params = readParams(b.connectionParameters)
      const type = typeof b.type === 'string' ? b.type.trim() : undefined
      if (b.type !== undefined && typeof b.type !== 'string') throw InvalidDataStore('type must be text')
      const fileKind = fileStoreKind(params, type)
      if (fileKind !== undefined) {
        if (params.namespace === undefined || params.namespace === '') params.namespace = ws.namespaceUri
        const file = await checkFileStoreParams(fileKind, params, fileRoots)
        const config: DataStoreConfig = {
          connectionParameters: file.params,
          ...(b.disableOnConnFailure !== undefined && b.disableOnConnFailure !== '' ? { disableOnConnFailure: bool(b.disableOnConnFailure, 'disableOnConnFailure') } : {})
        }
        const row: DataStoreRow = { workspace: ws.name, name, kind: 'data', type: file.type, enabled: true, description: description(b.description), createdAt: now().toISOString(), config }
        return serialized(ws.name, async () => { await rows.insert(row); return name })
      }
      if (type !== undefined && type !== '' && type.toLowerCase() !== POSTGIS_TYPE.toLowerCase()) throw UnsupportedDataStoreType(shown(type))
      if (params.dbtype === undefined) {
        if (type === undefined || type === '') throw UnsupportedDataStoreType('(none: give dbtype postgis or type PostGIS)')
        params.dbtype = 'postgis'
      } else if (params.dbtype.toLowerCase() !== 'postgis') throw UnsupportedDataStoreType(shown(params.dbtype))
      // GeoServer fills in the workspace's namespace when none is given.
      if (params.namespace === undefined || params.namespace === '') params.namespace = ws.namespaceUri
      const checked = checkPostgisParams(params)
      if (checked[PASSWORD] !== undefined) {
        const token = sealed(checked[PASSWORD])
        if (token === undefined) delete checked[PASSWORD]
        else checked[PASSWORD] = token
      }
      const config: DataStoreConfig = {
        connectionParameters: checked,
        ...(b.disableOnConnFailure !== undefined && b.disableOnConnFailure !== '' ? { disableOnConnFailure: bool(b.disableOnConnFailure, 'disableOnConnFailure') } : {})
      }
      // GeoServer creates every store enabled, whatever the body says.
      const row: DataStoreRow = { workspace: ws.name, name, kind: 'data', type: POSTGIS_TYPE, enabled: true, description: description(b.description), createdAt: now().toISOString(), config }
      return serialized(ws.name, async () => {
        if (await rows.get(ws.name, name) === undefined) await checkConnection(name, checked)
        await rows.insert(row) // refuses a name taken by any store, exactly or under case folding
        return name
      })
    },

    /**
     * PUT: changes description, enabled, disableOnConnFailure and connection parameters. Parameters
     * are merged: those sent replace the stored ones, an empty value removes one, `passwd` stays
     * unless sent. The name and the workspace cannot change (403, as GeoServer).
     */
    async update (wsName: string, name: string, body: Record<string, unknown>): Promise<void> {
      const ws = await workspaces.get(wsName)
      const b = readBody(body)
      await serialized(ws.name, async () => {
        const old = await requireStore(ws.name, name)
        if (b.name !== undefined && b.name !== '' && b.name !== name) throw DataStoreChangeRefused('name', `${shown(name)} to ${shown(b.name)}`)
        const given = workspaceName(b.workspace)
        if (given !== undefined && given !== ws.name) throw DataStoreChangeRefused('workspace', `${shown(ws.name)} to ${shown(given)}`)
        const kind = fileKindOfType(old.type)
        const sameKind = (t: string) => kind === undefined ? t === POSTGIS_TYPE.toLowerCase() : fileKindOfType(VECTOR_STORE_TYPES.find((x) => x.toLowerCase() === t) ?? '') === kind
        if (b.type !== undefined && b.type !== '' && (typeof b.type !== 'string' || !sameKind(b.type.trim().toLowerCase()))) throw DataStoreChangeRefused('type', `${old.type} to ${shown(b.type)}`)
        const sent = readParams(b.connectionParameters)
        if (kind !== undefined) {
          const merged: Params = { ...old.config.connectionParameters }
          for (const [k, v] of Object.entries(sent)) {
            if (v === '' && k !== 'url' && k !== 'database' && k !== 'dbtype') delete merged[k]
            else merged[k] = v
          }
          if (kind === 'geopkg' && merged.dbtype !== undefined && merged.dbtype.toLowerCase() !== 'geopkg') throw DataStoreChangeRefused('type', `${old.type} to dbtype ${shown(merged.dbtype)}`)
          const file = await checkFileStoreParams(kind, merged, fileRoots)
          // The type follows the url (one .shp or a folder); a store does not change type.
          if (file.type !== old.type) throw DataStoreChangeRefused('type', `${old.type} to ${file.type}: create another store for ${shown(merged.url)}`)
          const config: DataStoreConfig = { ...old.config, connectionParameters: file.params }
          if (b.disableOnConnFailure !== undefined && b.disableOnConnFailure !== '') config.disableOnConnFailure = bool(b.disableOnConnFailure, 'disableOnConnFailure')
          const row: DataStoreRow = {
            ...old,
            enabled: b.enabled === undefined || b.enabled === '' ? old.enabled : bool(b.enabled, 'enabled'),
            description: b.description === undefined ? old.description : description(b.description),
            config
          }
          if (row.description === undefined) delete row.description
          await rows.update(row)
          return
        }
        const merged: Params = { ...old.config.connectionParameters }
        for (const [k, v] of Object.entries(sent)) {
          if (k === PASSWORD) {
            // The token GET showed, sent back: unchanged.
            if (v === old.config.connectionParameters[PASSWORD]) continue
            const token = sealed(v)
            if (token === undefined) delete merged[k]
            else merged[k] = token
          } else if (v === '' && k !== 'dbtype' && k !== 'host' && k !== 'database' && k !== 'user') delete merged[k]
          else merged[k] = v
        }
        const checked = checkPostgisParams(merged)
        const config: DataStoreConfig = { ...old.config, connectionParameters: checked }
        if (b.disableOnConnFailure !== undefined && b.disableOnConnFailure !== '') config.disableOnConnFailure = bool(b.disableOnConnFailure, 'disableOnConnFailure')
        const row: DataStoreRow = {
          ...old,
          enabled: b.enabled === undefined || b.enabled === '' ? old.enabled : bool(b.enabled, 'enabled'),
          description: b.description === undefined ? old.description : description(b.description),
          config
        }
        if (row.description === undefined) delete row.description
        // A disabled store is not connected (as in GeoServer); enabling one checks it.
        if (row.enabled) await checkConnection(name, checked)
        await rows.update(row)
      })
      await storeChanged?.(ws.name, name)
    },

    /** DELETE: refused while the store has feature types, unless `recurse` (they go with it). */
    async remove (wsName: string, name: string, recurse: boolean): Promise<void> {
      const ws = await workspaces.get(wsName)
      const layers = await serialized(ws.name, async () => {
        await requireStore(ws.name, name)
        if (!recurse && await rows.featureTypeCount(ws.name, name) > 0) throw DataStoreNotEmpty()
        const published = await layersOf?.(ws.name, name) ?? []
        await rows.delete(ws.name, name)
        return published
      })
      await storeChanged?.(ws.name, name)
      if (layers.length > 0) await layersRemoved?.(layers)
    }
  }
}
export type DataStoreService = ReturnType<typeof createDataStoreService>
