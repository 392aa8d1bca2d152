// The composition root: opens the stores (services/storage/stores.ts openStores, the one choice of
// backend), builds every service of every area from them and the settings, and wires the areas'
// hooks to each other. The HTTP layer (plugins/infra/services.ts) only decorates what this returns
// and calls its lifecycle.
import { openStores, type Stores } from './storage/stores.js'
import type { Db } from './storage/sqlite/database.js'
import type { FaultPoint, FaultRule } from './faults.js'
import type { Change } from './storage/pg/change-bus.js'
import { createAuthenticator } from './auth/authenticator.js'
import { generatePassword, hashPassword } from './auth/passwords.js'
import { createWorkspaceService } from './catalog/workspaces.js'
import { createSettingsService } from './settings/settings.js'
import { createServiceSettings } from './settings/service-settings.js'
import { createAbout } from './catalog/about.js'
import { createSystemStatus } from './catalog/system-status.js'
import { createFontList } from './render/fonts.js'
import { createLayerCatalog } from './catalog/layers.js'
import { createLayerGroupService } from './catalog/layer-groups.js'
import { createStyleService } from './styles/service.js'
import { createLayerAccess } from './security/access.js'
import { createAccounts } from './security/accounts.js'
import { openMasterPassword } from './security/master-password.js'
import { createMosaicService } from './mosaics/mosaic-service.js'
import { createAppSchemaService } from './appschema/service.js'
import { createComplexServing } from './appschema/serving.js'
import { createPostgisSource } from './vector/postgis-source.js'
import { createGeoPackageSource } from './vector/geopackage-source.js'
import { createDataStoreService } from './datastores/service.js'
import { createFeatureTypeService } from './vector/feature-types.js'
import { createSourceRegistry } from './vector/sources.js'
import { createVectorUploads } from './vector/file-uploads.js'
import { createWmsService } from './wms/wms-service.js'
import { createWfsService } from './wfs/wfs-service.js'
import { featuresAt } from './render/vector/vector-plan.js'
import { createVectorLayerSummary } from './vector/layer-summary.js'
import { createMetrics } from './metrics.js'
import { buildTileServices } from './create-tile-services.js'
import { createVectorLayerData } from './vector/layer-data.js'
import { appSchemaLayerData } from './appschema/layer-data.js'
import { createResourceService } from './resource/service.js'
import { createRemoteFetch } from './files/remote-fetch.js'
import { createRemote } from './cascade/remote.js'
import { createCascadeService } from './cascade/service.js'
import { createStoreHealth } from './cascade/health.js'

/** The settings the services read (plugins/infra/config.ts resolves them from options and MAPWARDEN_*). */
export interface ServicesConfig {
  dataDir: string
  /** A PostgreSQL database several instances share; the embedded SQLite catalog without it. */
  databaseUrl?: string
  zipMaxEntries: number
  zipMaxBytes: number
  harvestRoots: string[]
  /** Where file blob stores may be created (MAPWARDEN_BLOBSTORE_ROOTS). */
  blobStoreRoots?: string[]
  /** url.* uploads over http(s): the hosts allowed, whether private addresses are (test only), the deadline. */
  remoteUploadHosts?: string[]
  remoteUploadAllowPrivate?: boolean
  remoteUploadTimeout?: number
  /** Cascaded WMS and WMTS stores: the hosts they may call (MAPWARDEN_CASCADE_HOSTS). */
  cascadeHosts?: string[]
  /** Seconds before a cascaded store marked down (disableOnConnFailure) asks its remote again (MAPWARDEN_CASCADE_RETRY). */
  cascadeRetrySeconds?: number
  uploadLimit?: number
  adminPassword?: string
  /** MAPWARDEN_ALLOW_WEAK_PASSWORDS: short and well-known passwords accepted (a throwaway test server). */
  allowWeakPasswords?: boolean
  authCacheSeconds: number
  workerThreads: number
  renderNice: number
  maxSeedThreads: number
  taskSlots: number
  tileQueue: number
  /** Seconds a request waits for a metatile another instance renders (MAPWARDEN_METATILE_WAIT). */
  metatileWait: number
  jpegQuality: number
  seedPyramid: boolean
  wmsMaxSize: number
  wfsMaxFeatures: number
  /** Most features of one vector layer a WMS map draws (MAPWARDEN_WMS_MAX_FEATURES). */
  wmsMaxFeatures?: number
  maxPendingTasks: number
  resumeTasks: boolean
  /** Secret that encrypts the master password; default: the key file in the data directory. */
  masterKey?: string
  faultKillAt?: FaultRule[]
}

export interface Logger {
  info: (obj: object, msg: string) => void
  warn: (obj: object, msg: string) => void
  error: (obj: object, msg: string) => void
}

export interface ServicesDeps {
  log: Logger
  /** Where a generated admin password is shown, once. */
  announce: (message: string) => void
  /** How to change a password, for the warning that MAPWARDEN_ADMIN_PASSWORD is ignored. */
  passwordHint: string
  /** Test-only (test/crash/): fault points where the process kills itself, as kill -9 would; the
   *  same ones the stores were opened with. */
  faults: FaultPoint
}

/**
 * Opens the stores and builds the services under their start-up lock: start-up recovery (files a
 * crash left, interrupted tasks, stale tile drops) runs only when no other instance shares the data.
 */
export async function createServices (config: ServicesConfig, deps: ServicesDeps): Promise<Services> {
  const stores = await openStores(config, { fault: deps.faults, onError: (err) => deps.log.warn({ err }, 'catalog database connection') })
  try {
    return await stores.startup((alone, crashed) => buildServices(config, stores, deps, alone, crashed))
  } catch (err) {
    await stores.close()
    throw err
  }
}

async function buildServices (config: ServicesConfig, stores: Stores, { log, announce, passwordHint, faults }: ServicesDeps, alone: boolean, crashed?: boolean) {
  const zipLimits = { maxEntries: config.zipMaxEntries, maxBytes: config.zipMaxBytes }
  // url.* uploads from http(s) URLs: allow-listed hosts, public addresses, capped and timed (files/remote-fetch.ts).
  const remoteFetch = createRemoteFetch({
    allowedHosts: config.remoteUploadHosts ?? [],
    allowPrivateAddresses: config.remoteUploadAllowPrivate ?? false,
    maxBytes: config.uploadLimit ?? 2 * 2 ** 30,
    timeoutSeconds: config.remoteUploadTimeout ?? 300
  })

  // Users and credentials.
  const users = stores.users
  const authenticator = createAuthenticator({
    users,
    cacheSeconds: config.authCacheSeconds,
    onFailure: (info) => log.warn({ user: info.user, address: info.address, failures: info.failures, delayMs: info.delayMs }, 'authentication failed')
  })
  await createFirstAdmin(users, config.adminPassword, { log, announce, passwordHint })
  const accounts = createAccounts(users, { allowWeak: config.allowWeakPasswords === true })
  if (config.allowWeakPasswords) log.warn({}, 'MAPWARDEN_ALLOW_WEAK_PASSWORDS is on: short and well-known passwords are accepted. Use it on a throwaway test server only')

  // Global settings (proxyBaseUrl, contact...), read once here and kept in memory.
  const globalSettings = createSettingsService({ store: stores.settings })
  await globalSettings.reload()
  // Service settings (WMS, WMTS, WFS: titles, keywords, enabled, WFS limits), kept in memory the same way.
  const serviceSettings = createServiceSettings({ store: stores.serviceSettings })
  await serviceSettings.reload()

  // Catalog, styles, rules.
  const workspaces = createWorkspaceService({ store: stores.workspaces, namespaceBase: 'http://mapwarden.org/ns', fault: faults })
  // disableOnConnFailure: a cascaded store whose remote cannot be reached has its layers read as disabled (cascade/health.ts).
  const cascadeHealth = createStoreHealth({ retrySeconds: config.cascadeRetrySeconds ?? 30 })
  const layers = createLayerCatalog(cascadeHealth.layers(stores.layers))
  const styles = createStyleService({ store: stores.styles, dataDir: config.dataDir, fault: faults, zipLimits })
  workspaces.onRemoved((ws) => styles.removeWorkspaceFiles(ws))
  workspaces.onRemoved((ws) => serviceSettings.workspaceRemoved(ws))
  // The resource API: the data directory's styles/, workspaces/ and templates/ as files. A removed
  // workspace's folder goes whole (after its styles), as GeoServer's does.
  const resources = createResourceService({ dataDir: config.dataDir })
  workspaces.onRemoved((ws) => resources.removeWorkspaceFolder(ws))
  const layerGroups = createLayerGroupService({ store: stores.layerGroups, layers, styles, workspaces })
  // A removed layer leaves the groups that used it (a group left empty goes), as in GeoServer.
  layers.onRemoved((layer) => layerGroups.layerRemoved(layer))
  workspaces.onRemoved((ws) => layerGroups.workspaceRemoved(ws))
  // Files a crash left between a write and its catalog row; not while another instance writes.
  if (alone) await styles.reconcile()
  // One rule store: layer rules, the catalog mode and the security settings (master password).
  const rules = stores.rules
  const layerAccess = await createLayerAccess({ rules, fault: faults })
  // The master password: a key that cannot open the stored one stops the start here.
  const masterPassword = await openMasterPassword({ settings: rules, dataDir: config.dataDir, secret: config.masterKey, fault: faults })
  // Rules of a deleted workspace go with it, so a new workspace of that name starts from the defaults.
  workspaces.onRemoved(async (ws) => {
    const n = await layerAccess.removeWorkspaceRules(ws)
    if (n > 0) log.info({ workspace: ws, rules: n }, 'layer rules of a deleted workspace removed')
  })

  // Data stores: image mosaics and application schemas.
  const mosaics = createMosaicService({
    store: stores.mosaics, dataDir: config.dataDir, harvestRoots: config.harvestRoots, workspaces, log, fault: faults,
    layersRemoved: (names) => layers.removed(names),
    zipLimits, remoteFetch
  })
  // The render plans' cache of the index (a layer's coverage row) goes with a removed layer or workspace.
  layers.onRemoved(async () => { mosaics.changedElsewhere() })
  workspaces.onRemoved(async () => { mosaics.changedElsewhere() })
  workspaces.onRemoved((name) => mosaics.workspaceRemoved(name))
  if (alone) await mosaics.reconcile()
  // App-schema mappings read their own source data stores (property files, PostGIS, GeoPackage).
  const complex = createComplexServing({ dataDir: config.dataDir, openers: { postgis: createPostgisSource, geopackage: createGeoPackageSource } })
  const appschema = createAppSchemaService({ store: stores.appschema, dataDir: config.dataDir, zipLimits, workspaces, checkSources: complex.checkSources })
  const swept = alone ? await appschema.sweep() : 0
  if (swept > 0) log.warn({ removed: swept }, 'app-schema: removed mapping directories no store referenced')
  workspaces.onRemoved((ws) => appschema.removeWorkspaceFiles(ws))
  // PostGIS data stores: passwords sealed with the master password's key; GeoPackage and Shapefile
  // stores read files under the data directory or the harvest roots.
  // Their feature types read the tables through one vector source (a small pool, an open file) per store.
  const fileRoots = { dataDir: config.dataDir, harvestRoots: config.harvestRoots }
  // A changed data store or feature type draws differently: its layers' cached tiles go (below).
  let vectorDataChanged = async (_names: string[], _reason: string, _areas?: Array<[number, number, number, number]>): Promise<void> => {}
  const sources = createSourceRegistry(masterPassword, undefined, fileRoots)
  const datastores = createDataStoreService({
    rows: stores.datastores,
    workspaces,
    secrets: masterPassword,
    fileRoots,
    async storeChanged (ws, name) {
      await sources.forget(ws, name)
      await vectorDataChanged((await stores.featureTypes.list(ws, name)).map((f) => `${ws}:${f.name}`), `data store ${ws}:${name} changed`)
    },
    layersOf: async (ws, name) => (await stores.featureTypes.list(ws, name)).map((f) => `${ws}:${f.name}`),
    layersRemoved: (names) => layers.removed(names)
  })
  workspaces.onRemoved((ws) => sources.forgetWorkspace(ws))
  const featureTypes = createFeatureTypeService({
    rows: stores.featureTypes, datastores, sources, secrets: masterPassword,
    layersRemoved: (names) => layers.removed(names),
    // The rename moved the layer's rules and tile settings in its transaction; the groups follow, the
    // rules and settings are read again, and the old name leaves the tile cache (its tiles dropped).
    layerRenamed: async (from, to) => {
      await layerGroups.layerRenamed(from, to)
      await layerAccess.reload()
      await layers.removed([from])
      await settings.reload()
    },
    layersChanged: (names) => vectorDataChanged(names, 'feature type changed')
  })
  // Cascaded WMS and WMTS stores: remote layers drawn from the remote's maps; passwords sealed like
  // the data stores'; every call to an allow-listed host (cascade/remote.ts).
  let cascadedChanged = async (_names: string[], _reason: string): Promise<void> => {}
  const cascade = createCascadeService({
    rows: stores.cascade,
    workspaces,
    secrets: masterPassword,
    remote: createRemote({ allowedHosts: config.cascadeHosts ?? [] }),
    health: cascadeHealth,
    layersRemoved: (names) => layers.removed(names),
    layersChanged: (names, reason) => cascadedChanged(names, reason)
  })
  const vectorUploads = createVectorUploads({ dataDir: config.dataDir, harvestRoots: config.harvestRoots, zipLimits, remoteFetch, datastores, featureTypes, sources, workspaces })
  if (alone) await vectorUploads.recover()

  // Operators' metrics (metrics.ts): the services report through its callbacks.
  const metrics = createMetrics({ log })

  // The render pool and queue, the renderer, the tile cache and its seeds, tile drops and the disk quota.
  /** The admin page's line of a vector layer (geometry type, feature count, bounds). */
  const vectorLayerSummary = createVectorLayerSummary({ featureTypes, datastores, sources })
  // An app-schema feature type whose mapping maps a geometry is drawn too, from its mapping's sources.
  const vectorLayerData = appSchemaLayerData({ layers, rows: stores.appschema, complex }, createVectorLayerData({ featureTypes, datastores, sources }))
  const { pool, records, settings, gridSets, blobStores, renderQueue, renderer, tileCache, diskQuota, scheduler, vectorDataChanged: tilesOfVectorData } =
    await buildTileServices(config, stores, { log, faults, workspaces, layers, layerGroups, styles, layerAccess, mosaics, metrics, layerData: vectorLayerData, mapImage: (req) => cascade.mapImage(req), alone, crashed })
  vectorDataChanged = tilesOfVectorData
  cascadedChanged = (names, reason) => tilesOfVectorData(names, reason)

  // What this instance keeps in memory follows the changes any instance commits (a shared database):
  // credentials, rules and the catalog mode, tile settings and stale marks, grid sets, the quota configuration,
  // style lists, the workspace list, what render plans read of mosaics. Layers and app-schema stores are read through on every request.
  // A reload announced by another instance (POST rest/reload there) re-reads everything, as a resync.
  const follow = async (change: Change | 'resync') => {
    const all = change === 'resync' || change.topic === 'reload'
    if (all || change.topic === 'global') await globalSettings.reload()
    // A workspace's own service settings go with it (removed on another instance: a catalog change).
    if (all || change.topic === 'services' || change.topic === 'catalog') await serviceSettings.reload()
    if (all || change.topic === 'users') authenticator.invalidate(all ? undefined : change.key)
    if (all || change.topic === 'rules' || change.topic === 'settings') await layerAccess.reload()
    if (all || change.topic === 'styles') styles.changedElsewhere()
    if (all || change.topic === 'catalog') workspaces.changedElsewhere()
    if (all || change.topic === 'mosaics' || change.topic === 'catalog') mosaics.changedElsewhere()
    // Tile settings go with a removed layer or workspace (a foreign key), so catalog changes re-read them too.
    if (all || change.topic === 'tiles' || change.topic === 'catalog') await settings.reload()
    if (all || change.topic === 'tiles') await tileCache.invalidation.reload()
    if (all || change.topic === 'gridsets') await gridSets.reload()
    if (all || change.topic === 'blobstores') await blobStores.reload()
    if (all || change.topic === 'quota') await diskQuota.reload()
  }
  const unfollow = stores.changes?.subscribe((change) => {
    follow(change).catch((err) => log.warn({ err, change }, 'could not apply a change made by another instance'))
  })

  // WMS, drawn by the same pool behind the same queue.
  const wms = createWmsService({
    tileCache,
    mosaics,
    styles,
    renderer,
    layerGroups,
    serviceSettings,
    maxSize: config.wmsMaxSize,
    featuresAt: (layer, area, crs, defs, limit, viewParams) => featuresAt({ layerData: vectorLayerData }, layer, area, crs, defs, limit, viewParams),
    cascadedInfo: (layer, q) => cascade.featureInfo(layer, q)
  })
  // WFS (read-only): the vector layers' features through their stores' sources, under the layer rules.
  const wfs = createWfsService({
    featureTypes,
    datastores,
    sources,
    namespaces: workspaces.namespaces,
    access: layerAccess,
    maxFeatures: config.wfsMaxFeatures,
    serviceSettings,
    complex: { getFeature: complex.getFeature, describe: complex.describe, store: (ws, name) => stores.appschema.getStore(ws, name) },
    // A committed Transaction: the tiles over what it touched go; a failed drop is logged, the edit stands.
    dataChanged: (names, areas, reason) => vectorDataChanged(names, reason, areas).catch((err) => { log.warn({ err, layers: names }, 'tile cache: could not drop the tiles of an edited layer') }),
    locks: stores.wfsLocks
  })

  metrics.readFrom({
    renderQueue: () => renderQueue.stats(),
    taskStates: () => records.countByState(),
    diskQuotaUsed: () => diskQuota.usedByQuota(),
    diskQuotaLimits: () => {
      const c = diskQuota.config
      return { enabled: c.enabled, limits: [{ quota: 'global', limitBytes: c.globalQuotaBytes }, ...c.layerQuotas.map((q) => ({ quota: q.layer, limitBytes: q.quotaBytes }))] }
    },
    dbPools: stores.dbPools
  })

  // about/manifest and about/status: the installed packages and the state of each component.
  const about = createAbout({
    backend: config.databaseUrl ? 'PostgreSQL' : 'SQLite',
    ping: () => stores.ping(),
    databaseVersion: () => stores.databaseVersion(),
    renderThreads: config.workerThreads,
    renderQueue: () => renderQueue.stats(),
    seedTasks: () => records.countByState()
  })

  // about/system-status: GeoServer's system metrics, read from the OS and this process when asked.
  const systemStatus = createSystemStatus({ dataDir: config.dataDir })

  // The font families the renderer finds through fontconfig (rest/fonts).
  const fonts = createFontList({ onError: (err) => log.warn({ err }, 'fonts: fc-list could not list the font families') })

  /** Drops what this instance caches of the catalog in memory (POST rest/reset): credentials, the
   *  workspace list, style lists; the next request reads them from the store. */
  const reset = () => {
    authenticator.invalidate()
    workspaces.changedElsewhere()
    styles.changedElsewhere()
    fonts.forget()
  }

  return {
    faults,
    resources,
    globalSettings,
    serviceSettings,
    about,
    systemStatus,
    fonts,
    catalog: {
      /** POST rest/reload: re-reads the catalog and every in-memory copy from the store here, and
       *  has every other instance on a shared database do the same. */
      async reload () {
        await follow('resync')
        await stores.announceReload()
      },
      /** POST rest/reset: drops the in-memory caches here and (a shared database) everywhere. */
      async reset () {
        reset()
        await stores.announceReload()
      }
    },
    users,
    authenticator,
    accounts,
    workspaces,
    layers,
    layerGroups,
    styles,
    rules,
    layerAccess,
    masterPassword,
    mosaics,
    appschema,
    datastores,
    cascade,
    featureTypes,
    vectorLayerSummary,
    vectorUploads,
    renderQueue,
    tileCache,
    diskQuota,
    wms,
    wfs,
    metrics,
    /** The SQLite catalog (tests read its rows); undefined on PostgreSQL. */
    db: stores.db as Db | undefined,
    ping: () => stores.ping(),
    /** Once the HTTP layer is ready: clean-ups start, interrupted seed tasks resume (MAPWARDEN_RESUME_TASKS). */
    async start () {
      scheduler.start()
      // Another live instance may be running the unfinished tasks: only the first to start takes them up.
      const { resumed, aborted } = await tileCache.start({ alone })
      if (aborted > 0) log.warn({ tasks: aborted }, 'seed tasks of the previous run marked aborted: restart')
      if (resumed > 0) log.warn({ tasks: resumed }, 'seed tasks of the previous run taken up again')
    },
    /** First step of a shutdown: running seed tasks stop (their records stay for a resume). */
    async stopTasks () { await tileCache.close() },
    /** Last step: clean-ups stop with a last accounting flush, the pool, the credential cache and the stores close. */
    async close () {
      unfollow?.()
      scheduler.stop()
      // With the database away the last flush fails: the quota's state stays "open", so the next
      // start rebuilds the usage from the files; the rest still closes.
      try { await diskQuota.close() } catch (err) { log.error({ err }, 'disk quota: the last accounting flush could not be written; the next start rebuilds the usage') }
      await pool.close()
      await sources.closeAll()
      await complex.closeAll()
      authenticator.close()
      await stores.close()
    }
  }
}

export type Services = Awaited<ReturnType<typeof buildServices>>

/** A new catalog gets one administrator: MAPWARDEN_ADMIN_PASSWORD, or a generated password shown once. */
async function createFirstAdmin (users: Stores['users'], adminPassword: string | undefined, { log, announce, passwordHint }: Omit<ServicesDeps, 'faults'>) {
  if (await users.count() === 0) {
    const password = adminPassword ?? generatePassword()
    const created = await users.insert({ name: 'admin', passwordHash: await hashPassword(password), enabled: true, roles: ['ADMIN'] })
    // Another instance starting on the same new database may have created it first.
    if (created && adminPassword === undefined) {
      announce(`mapwarden: created user "admin" with the generated password ${password}\n` +
        'mapwarden: it is shown this once and stored only as a hash; set MAPWARDEN_ADMIN_PASSWORD to choose one on a new data directory\n')
    }
  } else if (adminPassword !== undefined) {
    log.warn({}, `MAPWARDEN_ADMIN_PASSWORD is ignored: this data directory has users already. Change a password through the users resource: ${passwordHint}`)
  }
}
