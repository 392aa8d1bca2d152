// Composition root: opens the data directory, builds the services every area shares and hands
// them to Fastify as decorators. Areas build their own services from these in their plugins.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fs from 'node:fs'
import path from 'node:path'
import type { MapwardenConfig } from './config.js'
import { openDatabase, type Db } from '../../services/storage/database.js'
import { createSqliteWorkspaceStore, createWorkspaceService, type WorkspaceService } from '../../services/catalog/workspaces.js'
import { createSqliteUserStore, type UserStore } from '../../services/auth/users.js'
import { createSqliteLayerStore, type LayerStore } from '../../services/catalog/layers.js'
import { createAuthenticator, type Authenticator } from '../../services/auth/authenticator.js'
import { generatePassword, hashPassword } from '../../services/auth/passwords.js'
import { removeTempFiles } from '../../services/files/atomic.js'
import { lockDataDir } from '../../services/storage/data-dir-lock.js'
import { createStyleService, type StyleService } from '../../services/styles/service.js'
import { createLayerAccess, type LayerAccess } from '../../services/security/access.js'
import { createSqliteRuleStore, type RuleStore } from '../../services/security/rules.js'
import { ADMIN_ROLES } from './auth.js'
import tilePool from './tile-pool.js'
import { createMosaicService, type MosaicService } from '../../services/mosaics/mosaic-service.js'
import quotaScheduler from './quota-scheduler.js'
import { createFaults, killProcessAt, type FaultPoint } from '../../services/faults.js'

export interface Urls {
  /** Absolute URL of `{base}/rest/<segments>` for links, each segment URL-encoded as GeoServer does. */
  rest (req: FastifyRequest, ...segments: string[]): string
  /** Absolute URL of `{base}/<segments>` (tile services, web page). */
  base (req: FastifyRequest, ...segments: string[]): string
}

declare module 'fastify' {
  interface FastifyInstance {
    config: MapwardenConfig
    db: Db
    workspaces: WorkspaceService
    layers: LayerStore
    users: UserStore
    authenticator: Authenticator
    urls: Urls
    styles: StyleService
    /** The security rule store: layer rules, catalog mode, security settings (services/security/rules.ts). */
    rules: RuleStore
    /** Layer rules and catalog mode: decide/check/visible (services/security/access.ts). */
    layerAccess: LayerAccess
    mosaics: MosaicService
    /** Test-only fault points (MAPWARDEN_FAULT_KILL_AT); a no-op unless configured. */
    faults: FaultPoint
  }
}

/** java.net.URLEncoder semantics: a space is '+'. */
export function encodeSegment (s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+')
}

export interface ServicesOptions {
  config: MapwardenConfig
  prefix: string
  /** Where a generated admin password is shown, once. */
  announce: (message: string) => void
}

async function services (app: FastifyInstance, { config, prefix, announce }: ServicesOptions) {
  fs.mkdirSync(config.dataDir, { recursive: true })
  // Before any recovery: another live process on this directory would have its work undone.
  const lock = await lockDataDir(config.dataDir)
  const tmp = path.join(config.dataDir, 'tmp')
  await fs.promises.rm(tmp, { recursive: true, force: true }) // staging and uploads of a previous run
  await fs.promises.mkdir(tmp, { recursive: true })
  await removeTempFiles(config.dataDir, ['tiles', 'tmp'])

  // Test-only (test/crash/): the process kills itself at a configured fault point, as kill -9 would.
  const faults = createFaults(config.faultKillAt, killProcessAt)
  app.decorate('faults', faults)
  const db = openDatabase(config.dataDir)
  const users = createSqliteUserStore(db)
  const authenticator = createAuthenticator({
    users,
    cacheSeconds: config.authCacheSeconds,
    onFailure: (info) => app.log.warn({ user: info.user, address: info.address, failures: info.failures, delayMs: info.delayMs }, 'authentication failed')
  })
  if (await users.count() === 0) {
    const password = config.adminPassword ?? generatePassword()
    await users.insert({ name: 'admin', passwordHash: await hashPassword(password), enabled: true, roles: ['ADMIN'] })
    if (config.adminPassword === undefined) {
      announce(`mapwarden: created user "admin" with the generated password ${password}\n` +
        'mapwarden: it is shown this once and stored only as a hash; set MAPWARDEN_ADMIN_PASSWORD to choose one on a new data directory\n')
    }
  } else if (config.adminPassword !== undefined) {
    app.log.warn('MAPWARDEN_ADMIN_PASSWORD is ignored: this data directory has users already. Change a password through ' +
      `the users resource: curl -u admin:OLD -X POST -H 'Content-Type: application/json' -d '{"user":{"password":"NEW"}}' http://HOST${prefix}/rest/security/usergroup/user/admin`)
  }

  const urlFor = (req: FastifyRequest, parts: string[]) =>
    `${req.protocol}://${req.host}${prefix}/${parts.map(encodeSegment).join('/')}`
  app.decorate('config', config)
  app.decorate('db', db)
  app.decorate('users', users)
  app.decorate('authenticator', authenticator)
  app.decorate('workspaces', createWorkspaceService({ store: createSqliteWorkspaceStore(db), namespaceBase: 'http://mapwarden.org/ns', fault: faults }))
  app.decorate('layers', createSqliteLayerStore(db))
  // styles area: the SLD catalog; the tile cache asks it for a layer's RasterStyle.
  app.decorate('styles', createStyleService({ db, dataDir: config.dataDir, fault: faults, zipLimits: { maxEntries: config.zipMaxEntries, maxBytes: config.zipMaxBytes } }))
  app.workspaces.onRemoved((ws) => app.styles.removeWorkspaceFiles(ws))
  await app.styles.reconcile() // files a crash left between a write and its catalog row
  // One rule store: layer rules, the catalog mode and the security settings (master password).
  const rules = createSqliteRuleStore(db, faults)
  app.decorate('rules', rules)
  app.decorate('layerAccess', createLayerAccess({ rules, adminRoles: ADMIN_ROLES }))
  app.decorate('urls', {
    rest: (req: FastifyRequest, ...segments: string[]) => urlFor(req, ['rest', ...segments]),
    base: (req: FastifyRequest, ...segments: string[]) => urlFor(req, segments)
  })
  const workspaces = app.workspaces
  const mosaics = createMosaicService({
    db, dataDir: config.dataDir, harvestRoots: config.harvestRoots, workspaces, log: app.log, fault: faults,
    layersRemoved: (names) => app.layers.removed(names),
    zipLimits: { maxEntries: config.zipMaxEntries, maxBytes: config.zipMaxBytes }
  })
  workspaces.onRemoved((name) => mosaics.workspaceRemoved(name))
  await mosaics.reconcile()
  app.decorate('mosaics', mosaics)
  app.addHook('onClose', async () => {
    authenticator.close()
    db.close()
    lock.release()
  })
  await app.register(tilePool, { config }) // tile cache: render pool, blob store, seed tasks
  await app.register(quotaScheduler, { config }) // disk quota: accounting, clean-ups (after the tile cache)
}

export default fp(services, { name: 'services' })
