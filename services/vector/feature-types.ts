// Feature types of PostGIS data stores (GeoServer's FeatureTypeController): the configured list,
// the source's type names (`list=available|available_with_geom|all`), create (a feature type and
// its layer, with the attributes, the native CRS and both bounding boxes read from the table where
// the body does not give them), change (with `recalculate=nativebbox,latlonbbox`) and delete
// (`recurse`: its layer goes with it). Whatever is refused (no such table, a view without a
// geometry, a name taken, bad bounds) is refused before anything is stored.
import { checkName } from '../files/names.js'
import { createKeyedQueue } from '../keyed-queue.js'
import { checkFields, unifyShape } from '../body-fields.js'
import {
  DataStoreDisabled, FeatureTypeChangeRefused, FeatureTypeHasLayer, FeatureTypeNotFound, InvalidFeatureType, InvalidRecalculate,
  MapwardenError, NativeTypeNotFound, NativeTypeNotInFile, NoGeometry, SourceUnavailable, UnknownCrs
} from '../errors.js'
import { POSTGIS_TYPE } from '../datastores/store.js'
import { GEOPACKAGE_TYPE } from '../datastores/files.js'
import type { Envelope } from '../filters/tree.js'
import { asArray } from '../files/xml.js'
import type { DataStoreService } from '../datastores/service.js'
import type { DataStoreRow } from '../datastores/store.js'
import { reasonOf } from '../datastores/probe.js'
import { DEFAULT_SCHEMA } from '../datastores/params.js'
import { postgisOptions, type SourceRegistry } from './sources.js'
import type { Secrets } from '../datastores/service.js'
import type { TypeSchema, VectorSource } from './source.js'
import { sentNativeCrs } from './feature-type-crs.js'
import { bindView, virtualTableOfMetadata, type VirtualTable } from './virtual-table.js'
import type { FeatureTypeConfig, FeatureTypeRows, ProjectionPolicy, VectorFeatureType } from './store.js'

export interface FeatureTypeDeps {
  rows: FeatureTypeRows
  datastores: DataStoreService
  sources: SourceRegistry
  secrets: Secrets
  /** Told after layers were deleted (the tile cache drops their files). */
  layersRemoved?: (names: string[]) => Promise<void>
  /** Told after a layer was renamed (qualified names): layer groups follow, the old name's tiles go. */
  layerRenamed?: (from: string, to: string) => Promise<void>
  /** Told after a feature type was changed (its CRS, bounds...: the tile cache drops its tiles). */
  layersChanged?: (names: string[]) => Promise<void>
}

/** The kind of source of a store type, kept in the feature type for its readers. */
const sourceKind = (type: string): FeatureTypeConfig['source'] => type === POSTGIS_TYPE ? 'postgis' : type === GEOPACKAGE_TYPE ? 'geopackage' : 'shapefile'

export type ListKind = 'available' | 'available_with_geom' | 'all'
const POLICIES: ProjectionPolicy[] = ['FORCE_DECLARED', 'REPROJECT_TO_DECLARED', 'NONE']

/** Fields of a featureType body; the rest of what GET shows may be sent back unchanged. */
const WRITABLE = ['name', 'nativeName', 'title', 'abstract', 'keywords', 'nativeCRS', 'srs', 'projectionPolicy', 'nativeBoundingBox', 'latLonBoundingBox', 'enabled', 'advertised', 'attributes', 'metadata']
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const shown = (v: unknown) => { const s = JSON.stringify(v) ?? String(v); return s.length > 64 ? s.slice(0, 64) + '...' : s }

/** GeoServer's read-only and service fields, accepted as GET shows them (their defaults). */
const readOnlyFields = (ws: string, store: string): Record<string, unknown> => ({
  namespace: { name: ws },
  store: { '@class': 'dataStore', name: `${ws}:${store}` },
  serviceConfiguration: false,
  simpleConversionEnabled: false,
  maxFeatures: 0,
  numDecimals: 0,
  padWithZeros: false,
  forcedDecimal: false,
  overridingServiceSRS: false,
  skipNumberMatched: false,
  circularArcPresent: false
})

function text (v: unknown, field: string, max = 4096): string | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (typeof v !== 'string' && typeof v !== 'number') throw InvalidFeatureType(`${field} must be text`)
  const s = String(v)
  if (s.length > max) throw InvalidFeatureType(`${field} is longer than ${max} characters`)
  return s
}

function bool (v: unknown, field: string): boolean {
  if (v === true || v === false) return v
  if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true'
  throw InvalidFeatureType(`${field} must be true or false: ${shown(v)}`)
}

/** `advertised`: true is what every layer is; false (hidden from capabilities, still served) is not
 *  applied by mapwarden's capabilities yet, so it is refused rather than stored and ignored. */
function advertisedOf (v: unknown): true {
  if (bool(v, 'advertised')) return true
  throw InvalidFeatureType('advertised=false is not supported: every enabled layer is listed in the capabilities')
}

/** `EPSG:<code>` (also `urn:ogc:def:crs:EPSG::<code>` and a bare code); returns the code. */
export function epsgCode (v: string, field: string): number {
  const m = /^(?:EPSG:|urn:ogc:def:crs:EPSG:[0-9.]*:)?([0-9]{1,9})$/i.exec(v.trim())
  if (!m || Number(m[1]) <= 0) throw InvalidFeatureType(`${field} must be an EPSG code such as EPSG:4326: ${shown(v)}`)
  return Number(m[1])
}

/** A bounding box of a body ({minx, maxx, miny, maxy, crs}): four finite numbers, min <= max. */
export function readEnvelope (v: unknown, field: string, latLon: boolean): Envelope | undefined {
  if (v === undefined || v === '' || v === null) return undefined
  if (!isObject(v)) throw InvalidFeatureType(`${field} must hold minx, maxx, miny and maxy`)
  checkFields(v, field, ['minx', 'maxx', 'miny', 'maxy', 'crs'])
  const num = (k: string) => {
    const x = v[k]
    const n = typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN
    if (!Number.isFinite(n)) throw InvalidFeatureType(`${field} ${k} must be a finite number: ${shown(x ?? null)}`)
    return n
  }
  const env: Envelope = [num('minx'), num('miny'), num('maxx'), num('maxy')]
  if (env[0] > env[2]) throw InvalidFeatureType(`${field} minx (${env[0]}) is above maxx (${env[2]})`)
  if (env[1] > env[3]) throw InvalidFeatureType(`${field} miny (${env[1]}) is above maxy (${env[3]})`)
  if (latLon && (env[0] < -180 || env[2] > 180 || env[1] < -90 || env[3] > 90)) throw InvalidFeatureType(`${field} is outside longitudes -180..180 and latitudes -90..90: ${env.join(', ')}`)
  return env
}

function keywordsOf (v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined
  if (v === '') return []
  const items = isObject(v) ? (checkFields(v, 'keywords', ['string']), asArray(v.string)) : asArray(v)
  return items.map((k, i) => {
    const s = text(k, `keywords item ${i + 1}`, 256)
    if (s === undefined) throw InvalidFeatureType(`keywords item ${i + 1} is empty`)
    return s
  })
}

/** The attributes a body names (a subset of the table's columns, in the body's order). */
function attributeNames (v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined
  const items = isObject(v) ? (checkFields(v, 'attributes', ['attribute']), asArray(v.attribute)) : asArray(v)
  return items.map((a, i) => {
    const name = isObject(a) ? a.name : a
    if (typeof name !== 'string' || name === '') throw InvalidFeatureType(`attributes item ${i + 1} needs a name`)
    return name
  })
}

/** GeoServer's generic styles by geometry type. */
export function defaultStyleFor (geometryType: string | undefined): string {
  const t = (geometryType ?? '').toUpperCase().replace(/(ZM|Z|M)$/, '')
  if (t === 'POINT' || t === 'MULTIPOINT') return 'point'
  if (t === 'LINESTRING' || t === 'MULTILINESTRING') return 'line'
  if (t === 'POLYGON' || t === 'MULTIPOLYGON') return 'polygon'
  return 'generic'
}

export function parseRecalculate (v: string | undefined): { native: boolean, latLon: boolean } {
  const out = { native: false, latLon: false }
  if (v === undefined || v.trim() === '') return out
  for (const part of v.split(',')) {
    const p = part.trim().toLowerCase()
    if (p === 'nativebbox') out.native = true
    else if (p === 'latlonbbox') out.latLon = true
    else if (p !== '') throw InvalidRecalculate(shown(part))
  }
  return out
}

export function createFeatureTypeService ({ rows, datastores, sources, secrets, layersRemoved, layerRenamed, layersChanged }: FeatureTypeDeps) {
  const serialized = createKeyedQueue()

  /** Runs a read of the store's database; a failure that is not ours names the store and the reason. */
  const guarded = async <T> (store: DataStoreRow, fn: (s: VectorSource) => Promise<T>): Promise<T> => {
    // GeoServer does not connect a disabled store; neither is it read here.
    if (!store.enabled) throw DataStoreDisabled(store.name)
    try {
      return await fn(sources.forStore(store))
    } catch (err) {
      if (err instanceof MapwardenError) throw err
      const e = err as { code?: string, message?: string }
      if (store.type !== POSTGIS_TYPE) throw SourceUnavailable(store.name, e.message ?? String(err))
      // An SRID PostGIS does not know, a transform it cannot do: the request's values are at fault.
      if (e.code === 'XX000' || e.code === '22023') throw InvalidFeatureType(e.message ?? String(err))
      throw SourceUnavailable(store.name, reasonOf(err, postgisOptions(store, secrets)))
    }
  }

  const schemaOf = (store: DataStoreRow) => store.config.connectionParameters.schema || DEFAULT_SCHEMA
  const estimated = (store: DataStoreRow) => store.config.connectionParameters['Estimated extends'] === 'true'

  const requireFt = async (ws: string, store: string, name: string): Promise<VectorFeatureType> => {
    const ft = await rows.get(ws, name)
    if (!ft || ft.store !== store) throw FeatureTypeNotFound(ws, store, name)
    return ft
  }

  /** The table's schema, refused when the table is not there or has no geometry. */
  const describeTable = async (store: DataStoreRow, nativeName: string): Promise<TypeSchema & { geometry: NonNullable<TypeSchema['geometry']> }> => {
    const schema = await guarded(store, (s) => s.describe(nativeName))
    if (!schema) {
      const p = store.config.connectionParameters
      if (store.type === GEOPACKAGE_TYPE) throw NativeTypeNotInFile(nativeName, `GeoPackage ${JSON.stringify(p.database)}`, store.name)
      if (store.type !== POSTGIS_TYPE) throw NativeTypeNotInFile(nativeName, `${JSON.stringify(p.url)} (a shapefile's type is its file name)`, store.name)
      throw NativeTypeNotFound(nativeName, schemaOf(store), store.name)
    }
    if (!schema.geometry) throw NoGeometry(nativeName, store.name)
    return schema as TypeSchema & { geometry: NonNullable<TypeSchema['geometry']> }
  }

  /** An SQL view's schema, keys and bounds: its SELECT described with the defaults bound (read-only,
   *  nothing read); refused unless the store is PostGIS and the database takes the SQL. */
  const describeView = async (store: DataStoreRow, vt: VirtualTable) => {
    if (store.type !== POSTGIS_TYPE) throw InvalidFeatureType(`an SQL view (JDBC_VIRTUAL_TABLE) needs a PostGIS store; ${store.name} is ${store.type}`)
    const bound = bindView(vt, undefined)
    const d = await guarded(store, (s) => s.describeView!(vt, bound.sql, bound.values))
    return d as typeof d & { schema: { geometry: NonNullable<TypeSchema['geometry']> } }
  }

  /** The native bounds of a feature type's data: its SQL view's rows, or its table's. */
  const boundsOf = async (store: DataStoreRow, nativeName: string, vt: VirtualTable | undefined): Promise<Envelope | undefined> =>
    vt ? (await describeView(store, vt)).bounds : await guarded(store, (s) => s.bounds(nativeName, estimated(store)))

  /** Lat/lon bounds of native bounds: from the declared CRS when the data is forced to it, else the native one. */
  const latLonOf = async (store: DataStoreRow, env: Envelope, cfg: FeatureTypeConfig, srs: string | undefined): Promise<Envelope | undefined> => {
    const code = cfg.projectionPolicy === 'FORCE_DECLARED' && srs ? epsgCode(srs, 'srs') : cfg.nativeCRS ? epsgCode(cfg.nativeCRS, 'nativeCRS') : undefined
    if (code === undefined) return undefined
    return await guarded(store, (s) => s.toLatLon(env, code))
  }

  /** The projection policy of a body, refused unless GeoServer knows it; undefined when not sent. */
  const policyOf = (v: unknown): ProjectionPolicy | undefined => {
    const t = text(v, 'projectionPolicy', 64)
    if (t !== undefined && !POLICIES.includes(t as ProjectionPolicy)) throw InvalidFeatureType(`projectionPolicy must be one of ${POLICIES.join(', ')}: ${shown(t)}`)
    return t as ProjectionPolicy | undefined
  }

  /** The declared CRS of a body (`EPSG:<code>`), refused unless the store's database knows it. */
  const declaredCrs = async (store: DataStoreRow, sent: string): Promise<string> => {
    const code = epsgCode(sent, 'srs')
    if (!await guarded(store, (s) => s.hasCrs(code))) throw UnknownCrs(`EPSG:${code}`, store.name)
    return `EPSG:${code}`
  }

  return {
    async list (ws: string, store: string): Promise<VectorFeatureType[]> {
      await datastores.get(ws, store)
      return await rows.list(ws, store)
    },

    async listWorkspace (ws: string): Promise<VectorFeatureType[]> { return await rows.list(ws) },

    /** Whether a store is one whose feature types this service keeps (a PostGIS store). */
    async handles (ws: string, store: string): Promise<boolean> { return (await datastores.find(ws, store)) !== undefined },

    /** The source's type names: not yet configured (`available`, `available_with_geom`) or all. */
    async names (ws: string, storeName: string, list: ListKind): Promise<string[]> {
      const store = await datastores.get(ws, storeName)
      const types = await guarded(store, (s) => s.listTypes())
      if (list === 'all') return types.map((t) => t.name)
      const configured = new Set((await rows.list(ws, storeName)).map((f) => f.nativeName))
      return types.filter((t) => !configured.has(t.name) && (list === 'available' || t.hasGeometry)).map((t) => t.name)
    },

    async get (ws: string, store: string, name: string): Promise<VectorFeatureType> {
      await datastores.get(ws, store)
      return await requireFt(ws, store, name)
    },

    /** The feature type of a workspace by name (its store read from the row). */
    async find (ws: string, name: string): Promise<VectorFeatureType | undefined> { return await rows.get(ws, name) },

    /** POST: a feature type of the store's table `nativeName` (default: the name), and its layer. */
    async create (ws: string, storeName: string, body: Record<string, unknown>): Promise<string> {
      const store = await datastores.get(ws, storeName)
      const b = unifyShape(body) as Record<string, unknown>
      checkFields(b, 'featureType', WRITABLE, readOnlyFields(store.workspace, store.name))
      const vt = virtualTableOfMetadata(b.metadata)
      const sentNativeName = text(b.nativeName, 'nativeName', 256)
      // An SQL view's native name is its virtual table's (GeoServer sets it so).
      if (vt && sentNativeName !== undefined && sentNativeName !== vt.name) throw InvalidFeatureType(`nativeName ${shown(sentNativeName)} must be the virtual table's name ${shown(vt.name)}`)
      const nativeName = vt?.name ?? sentNativeName ?? text(b.name, 'name', 256)
      if (nativeName === undefined) throw InvalidFeatureType('name or nativeName is required')
      const name = checkName(text(b.name, 'name', 256) ?? nativeName, 'feature type')
      const view = vt ? await describeView(store, vt) : undefined
      const schema = view ? view.schema : await describeTable(store, nativeName)
      const wanted = attributeNames(b.attributes)
      let attributes = schema.attributes
      if (wanted !== undefined) {
        const byName = new Map(schema.attributes.map((a) => [a.name, a]))
        attributes = wanted.map((n) => {
          const a = byName.get(n)
          if (!a) throw InvalidFeatureType(`attribute ${shown(n)} is not a column of ${shown(nativeName)} (columns: ${schema.attributes.map((x) => x.name).join(', ')})`)
          return a
        })
        if (!attributes.some((a) => a.name === schema.geometry.name)) throw InvalidFeatureType(`attributes must include the geometry column ${shown(schema.geometry.name)}`)
      }
      const srid = schema.geometry.srid
      const dataCrs = srid > 0 ? { nativeCRS: `EPSG:${srid}` } : { nativeWkt: schema.geometry.wkt }
      const sentCrs = await sentNativeCrs(b.nativeCRS, dataCrs, nativeName)
      const { nativeCRS, nativeWkt } = { ...dataCrs, ...sentCrs }
      const sentSrs = text(b.srs, 'srs', 256)
      const srs = sentSrs !== undefined ? await declaredCrs(store, sentSrs) : nativeCRS
      if (srs === undefined) throw InvalidFeatureType(`${shown(nativeName)} declares no SRID: give srs (EPSG:<code>) and projectionPolicy FORCE_DECLARED`)
      const projectionPolicy: ProjectionPolicy = policyOf(b.projectionPolicy) ?? (nativeCRS === undefined || nativeCRS === srs ? 'FORCE_DECLARED' : 'REPROJECT_TO_DECLARED')
      if (projectionPolicy !== 'FORCE_DECLARED' && nativeCRS === undefined) throw InvalidFeatureType(`${shown(nativeName)} declares no SRID: only projectionPolicy FORCE_DECLARED can apply`)
      const sentNative = readEnvelope(b.nativeBoundingBox, 'nativeBoundingBox', false)
      const sentLatLon = readEnvelope(b.latLonBoundingBox, 'latLonBoundingBox', true)
      const config: FeatureTypeConfig = {
        source: sourceKind(store.type),
        ...(text(b.abstract, 'abstract') !== undefined ? { abstract: text(b.abstract, 'abstract') } : {}),
        keywords: keywordsOf(b.keywords) ?? ['features', nativeName],
        ...(nativeCRS ? { nativeCRS } : {}),
        ...(nativeWkt ? { nativeWkt } : {}),
        ...(sentCrs ? { nativeCrsFromBody: true } : {}),
        projectionPolicy,
        enabled: b.enabled === undefined || b.enabled === '' ? true : bool(b.enabled, 'enabled'),
        // Python's str(True) is "True" (the geoserver-rest package's publish_featurestore): any letter case.
        ...(b.advertised !== undefined && b.advertised !== '' ? { advertised: advertisedOf(b.advertised) } : {}),
        attributes,
        geometry: schema.geometry,
        ...(vt ? { virtualTable: vt } : {})
      }
      const nativeBbox = sentNative ?? (view ? view.bounds : await guarded(store, (s) => s.bounds(nativeName, estimated(store))))
      if (nativeBbox) config.nativeBbox = nativeBbox
      const latLonBbox = sentLatLon ?? (nativeBbox ? await latLonOf(store, nativeBbox, config, srs) : undefined)
      const ft: VectorFeatureType = {
        workspace: store.workspace,
        store: store.name,
        name,
        nativeName,
        title: text(b.title, 'title') ?? name,
        srs,
        ...(latLonBbox ? { latLonBbox } : {}),
        config
      }
      await serialized(store.workspace, () => rows.insert(ft, defaultStyleFor(schema.geometry.type)))
      return name
    },

    /**
     * PUT: name, title, abstract, keywords, nativeCRS, srs, projectionPolicy, enabled and the bounding
     * boxes; the native name and store cannot change (403). `recalculate` recomputes the bounds named.
     * A new name renames the feature type and its layer, as GeoServer does (the native name stays);
     * a name another resource of the workspace has is a 409 and changes nothing.
     */
    async update (ws: string, storeName: string, name: string, body: Record<string, unknown>, recalculate: string | undefined): Promise<void> {
      const store = await datastores.get(ws, storeName)
      const recalc = parseRecalculate(recalculate)
      const b = unifyShape(body) as Record<string, unknown>
      const sentName = text(b.name, 'name', 256)
      const newName = sentName === undefined || sentName === name ? name : checkName(sentName, 'feature type')
      await serialized(store.workspace, async () => {
        const old = await requireFt(ws, storeName, name)
        checkFields(b, 'featureType', WRITABLE, readOnlyFields(store.workspace, store.name))
        if (b.nativeName !== undefined && b.nativeName !== '' && b.nativeName !== old.nativeName) throw FeatureTypeChangeRefused('nativeName', `${shown(old.nativeName)} to ${shown(b.nativeName)}`)
        const config: FeatureTypeConfig = { ...old.config }
        // A changed SQL view is described again: its attributes follow its SELECT.
        const vt = virtualTableOfMetadata(b.metadata)
        if (vt && !old.config.virtualTable) throw FeatureTypeChangeRefused('metadata', `${shown(old.nativeName)} is a table, not an SQL view: publish the view as a feature type of its own`)
        if (vt && vt.name !== old.nativeName) throw FeatureTypeChangeRefused('virtualTable name', `${shown(old.nativeName)} to ${shown(vt.name)}`)
        const viewChanged = vt !== undefined && JSON.stringify(vt) !== JSON.stringify(old.config.virtualTable)
        if (vt && viewChanged) {
          const view = await describeView(store, vt)
          config.virtualTable = vt
          config.attributes = view.schema.attributes
          config.geometry = view.schema.geometry
        }
        const wanted = attributeNames(b.attributes)
        if (wanted !== undefined && !viewChanged && wanted.join('\u0000') !== old.config.attributes.map((a) => a.name).join('\u0000')) throw FeatureTypeChangeRefused('attributes', 'they follow the table: delete and create the feature type to choose others')
        if (b.abstract !== undefined) { const a = text(b.abstract, 'abstract'); if (a === undefined) delete config.abstract; else config.abstract = a }
        const kw = keywordsOf(b.keywords)
        if (kw !== undefined) config.keywords = kw
        if (b.enabled !== undefined && b.enabled !== '') config.enabled = bool(b.enabled, 'enabled')
        if (b.advertised !== undefined && b.advertised !== '') config.advertised = advertisedOf(b.advertised)
        const crs = await sentNativeCrs(b.nativeCRS, old.config, old.nativeName)
        if (crs) {
          for (const k of ['nativeCRS', 'nativeWkt'] as const) { if (crs[k] === undefined) delete config[k]; else config[k] = crs[k] }
          config.nativeCrsFromBody = true
        }
        const sentSrs = text(b.srs, 'srs', 256)
        const srs = sentSrs !== undefined && sentSrs !== old.srs ? await declaredCrs(store, sentSrs) : old.srs
        const policy = policyOf(b.projectionPolicy)
        if (policy !== undefined) config.projectionPolicy = policy
        if (config.projectionPolicy !== 'FORCE_DECLARED' && config.nativeCRS === undefined) throw InvalidFeatureType(`${shown(old.nativeName)} declares no SRID: only projectionPolicy FORCE_DECLARED can apply`)
        const sentNative = readEnvelope(b.nativeBoundingBox, 'nativeBoundingBox', false)
        let latLonBbox = readEnvelope(b.latLonBoundingBox, 'latLonBoundingBox', true) ?? old.latLonBbox
        if (sentNative) config.nativeBbox = sentNative
        if (recalc.native) {
          const env = await boundsOf(store, old.nativeName, config.virtualTable)
          if (env) config.nativeBbox = env
          else delete config.nativeBbox
        }
        if (recalc.latLon) latLonBbox = config.nativeBbox ? await latLonOf(store, config.nativeBbox, config, srs) : undefined
        const ft: VectorFeatureType = {
          ...old,
          name: newName,
          title: b.title === undefined ? old.title : text(b.title, 'title') ?? newName,
          ...(srs ? { srs } : {}),
          config
        }
        if (latLonBbox) ft.latLonBbox = latLonBbox
        else delete ft.latLonBbox
        if (newName === name) await rows.update(ft)
        else await rows.rename(name, ft)
      })
      if (newName !== name) await layerRenamed?.(`${store.workspace}:${name}`, `${store.workspace}:${newName}`)
      else await layersChanged?.([`${store.workspace}:${name}`])
    },

    /** DELETE: the feature type is published as a layer, so it goes only with `recurse` (as GeoServer). */
    async remove (ws: string, storeName: string, name: string, recurse: boolean): Promise<void> {
      const store = await datastores.get(ws, storeName)
      await serialized(store.workspace, async () => {
        await requireFt(ws, storeName, name)
        if (!recurse) throw FeatureTypeHasLayer(name, `${ws}:${name}`)
        await rows.delete(ws, name)
      })
      await layersRemoved?.([`${ws}:${name}`])
    }
  }
}
export type FeatureTypeService = ReturnType<typeof createFeatureTypeService>
