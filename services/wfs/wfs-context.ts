// What the WFS operations share: their collaborators, and how a type name of a request becomes a
// feature type the caller may read. Feature types are the catalog's (services/vector: enabled,
// of an enabled store), read through the store's VectorSource; the layer rules decide, as on WMS
// and tiles: a layer the caller may not read is unknown (HIDE), or challenged (MIXED, CHALLENGE).
import type { Principal } from '../auth/authenticator.js'
import { ANONYMOUS } from '../auth/authenticator.js'
import type { Namespace } from '../catalog/workspaces.js'
import type { DataStoreRow } from '../datastores/store.js'
import type { LayerAccess } from '../security/access.js'
import type { AttributeInfo, GeometryInfo, VectorSource } from '../vector/source.js'
import type { VectorFeatureType } from '../vector/store.js'
import type { ServiceSettings } from '../settings/service-settings.js'
import type { Envelope } from '../filters/tree.js'
import { WfsInvalidParameter, WfsUnknownType } from '../errors.js'
import type { WfsLockStore } from './lock-store.js'
import type { ComplexServing } from '../appschema/serving.js'

/** The type of application-schema data stores (services/appschema): their types are complex features. */
export const APP_SCHEMA_STORE_TYPE = 'Application Schema DataAccess'

export interface WfsDeps {
  featureTypes: { listWorkspace (ws: string): Promise<VectorFeatureType[]>, find (ws: string, name: string): Promise<VectorFeatureType | undefined> }
  datastores: { find (ws: string, name: string): Promise<DataStoreRow | undefined> }
  sources: { forStore (row: DataStoreRow): VectorSource }
  namespaces: { list (): Promise<Namespace[]> }
  access: Pick<LayerAccess, 'check' | 'visible'>
  /** The most features one GetFeature answers (MAPWARDEN_WFS_MAX_FEATURES). */
  maxFeatures: number
  /** The WFS settings ({base}/rest/services/wfs/settings, a workspace's own for its virtual service). */
  serviceSettings: { get (service: 'wfs', workspace?: string): ServiceSettings, local (service: 'wfs', workspace: string): ServiceSettings | undefined }
  /** A Transaction changed the layers' data under `areas` (lon/lat boxes; undefined: anywhere): their
   *  cached tiles there go, and the groups' drawing them. */
  dataChanged (layers: string[], areas: Envelope[] | undefined, reason: string): Promise<void>
  /** The WFS locks, in the catalog database (lock-store.ts). */
  locks: WfsLockStore
  /** The clock locks expire by (ms); Date.now by default. */
  now?: () => number
  /** The mapped (complex) features of app-schema stores; without it their types are not served. */
  complex?: Pick<ComplexServing, 'getFeature' | 'describe'> & {
    /** The app-schema store of that name, if any (enabled, its configuration). */
    store (ws: string, name: string): Promise<{ workspace: string, name: string, enabled: boolean, type: string, config: unknown } | undefined>
  }
}

export interface Where {
  /** Virtual service of one workspace ({base}/<ws>/wfs): only its types, names may be unqualified. */
  workspace?: string
}

/** A feature type as the WFS serves it. */
export interface ServedType {
  ft: VectorFeatureType
  /** The namespace prefix (the workspace) and URI. */
  prefix: string
  uri: string
  /** `prefix:name`. */
  qualified: string
  /** The published attributes, in order (the geometry among them). */
  attributes: AttributeInfo[]
  geometry?: GeometryInfo
  /** The CRS of the data as served (`EPSG:n`): the declared one. */
  crs?: string
  store: DataStoreRow
  /** An app-schema type: its features are the mapping's (services/appschema), GML of its target schema. */
  complex?: true
}

export type WfsContext = ReturnType<typeof createWfsContext>

/**
 * The most features one GetFeature answers here: the WFS settings' maxFeatures (of the workspace's
 * own settings on its virtual service; 0 is no limit) and the server's MAPWARDEN_WFS_MAX_FEATURES,
 * the smaller of the two.
 */
export function maxFeaturesOf (deps: Pick<WfsDeps, 'maxFeatures' | 'serviceSettings'>, where: Where): number {
  const s = deps.serviceSettings.get('wfs', where.workspace).maxFeatures ?? 0
  return s > 0 ? Math.min(s, deps.maxFeatures) : deps.maxFeatures
}

export function createWfsContext (deps: WfsDeps) {
  const uriOf = async (ws: string) => (await deps.namespaces.list()).find((n) => n.prefix === ws)?.uri ?? `http://mapwarden.org/ns/${ws}`

  async function served (ft: VectorFeatureType, uri?: string): Promise<ServedType | undefined> {
    const store = await deps.datastores.find(ft.workspace, ft.store)
    if (!store) {
      const app = await deps.complex?.store(ft.workspace, ft.store)
      if (!app || !app.enabled || app.type !== APP_SCHEMA_STORE_TYPE) return undefined
      // The app-schema resource's configuration is its mapping's; the WFS reads what it shares.
      const complexFt: VectorFeatureType = { ...ft, config: { source: 'postgis', keywords: ['features', ft.nativeName], projectionPolicy: 'FORCE_DECLARED', enabled: true, attributes: [] } }
      return { ft: complexFt, prefix: ft.workspace, uri: uri ?? await uriOf(ft.workspace), qualified: `${ft.workspace}:${ft.name}`, attributes: [], ...(ft.srs ? { crs: ft.srs } : {}), store: app as unknown as DataStoreRow, complex: true }
    }
    if (!store.enabled || !ft.config.enabled) return undefined
    const crs = ft.srs ?? (ft.config.geometry && ft.config.geometry.srid > 0 ? `EPSG:${ft.config.geometry.srid}` : undefined)
    return {
      ft,
      prefix: ft.workspace,
      uri: uri ?? await uriOf(ft.workspace),
      qualified: `${ft.workspace}:${ft.name}`,
      attributes: ft.config.attributes,
      ...(ft.config.geometry ? { geometry: ft.config.geometry } : {}),
      ...(crs ? { crs } : {}),
      store
    }
  }

  /** A feature type the caller may read, by its name in this service (`ws:name`; a bare name in
   *  a workspace's service, or where one workspace alone has it); else WfsUnknownType. */
  async function readable (name: string, principal: Principal | undefined, where: Where): Promise<ServedType> {
    const raw = name.trim()
    const i = raw.indexOf(':')
    let candidates: VectorFeatureType[] = []
    if (i >= 0) {
      const ws = raw.slice(0, i)
      if (where.workspace && ws !== where.workspace) throw WfsUnknownType(raw)
      const ft = await deps.featureTypes.find(ws, raw.slice(i + 1))
      if (ft) candidates = [ft]
    } else if (where.workspace) {
      const ft = await deps.featureTypes.find(where.workspace, raw)
      if (ft) candidates = [ft]
    } else {
      for (const ns of await deps.namespaces.list()) {
        const ft = await deps.featureTypes.find(ns.prefix, raw)
        if (ft) candidates.push(ft)
      }
    }
    if (candidates.length !== 1) throw WfsUnknownType(raw)
    const s = await served(candidates[0])
    if (!s) throw WfsUnknownType(raw)
    deps.access.check(principal ?? ANONYMOUS, s.ft.workspace, s.ft.name, 'r', { notFound: () => WfsUnknownType(raw) })
    return s
  }

  /** Every feature type the caller may see listed, by workspace then name. */
  async function listed (principal: Principal | undefined, where: Where): Promise<ServedType[]> {
    const out: ServedType[] = []
    const spaces = (await deps.namespaces.list()).filter((n) => !where.workspace || n.prefix === where.workspace)
      .sort((a, b) => a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0)
    for (const ns of spaces) {
      const fts = deps.access.visible(principal ?? ANONYMOUS, await deps.featureTypes.listWorkspace(ns.prefix), (f) => ({ workspace: f.workspace, layer: f.name }))
      for (const ft of fts.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) {
        const s = await served(ft, ns.uri)
        if (s) out.push(s)
      }
    }
    return out
  }

  /** The vector source of a simple type; an app-schema type has none (its mapping reads its sources). */
  const sourceOf = (t: ServedType) => {
    if (t.complex) throw WfsInvalidParameter('typeName', t.qualified, 'an app-schema (complex) type is read-only and offers GetFeature and DescribeFeatureType only')
    return deps.sources.forStore(t.store)
  }
  return { deps, readable, listed, sourceOf }
}
