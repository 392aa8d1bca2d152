// Workspaces: the first thing every GeoServer client touches. The store is an interface so that a
// PostgreSQL catalog can replace the embedded one without touching plugins.
import type { Db } from '../storage/database.js'
import { InvalidBody, WorkspaceExists, WorkspaceNotEmpty, WorkspaceNotFound } from '../errors.js'
import { checkName } from '../files/names.js'
import { onlyFields } from '../body-fields.js'
import { noFaults, type FaultPoint } from '../faults.js'

// GeoServer's workspace representation; the store links are links only, derived from the name
// (GET-modify-PUT sends them back). Anything else (dateCreated, which GET does not show) is refused.
const WORKSPACE_FIELDS = ['name', 'isolated']
const WORKSPACE_READ_ONLY = ['dataStores', 'coverageStores', 'wmsStores', 'wmtsStores']

function isolatedFlag (v: unknown): boolean {
  if (v === true || v === 'true') return true
  if (v === false || v === 'false' || v === '') return false
  throw InvalidBody(`workspace isolated must be true or false, got ${JSON.stringify(String(v).slice(0, 20))}`)
}

export interface Workspace { name: string, namespaceUri: string, isolated: boolean }

export interface WorkspaceStore {
  list (): Promise<Workspace[]>
  get (name: string): Promise<Workspace | undefined>
  /** The workspace whose name equals `name` ignoring (ASCII) case, as insert compares them. */
  getFolded (name: string): Promise<Workspace | undefined>
  insert (ws: Workspace): Promise<boolean>
  update (name: string, ws: Workspace): Promise<void>
  /** Number of stores and styles that live in the workspace. */
  contents (name: string): Promise<number>
  remove (name: string): Promise<void>
}

export function createSqliteWorkspaceStore (db: Db): WorkspaceStore {
  const rowTo = (r: { name: string, namespace_uri: string, isolated: number }): Workspace =>
    ({ name: r.name, namespaceUri: r.namespace_uri, isolated: r.isolated === 1 })
  const q = {
    list: db.prepare('SELECT * FROM workspaces ORDER BY name'),
    get: db.prepare('SELECT * FROM workspaces WHERE name = ?'),
    getFolded: db.prepare('SELECT * FROM workspaces WHERE mw_fold(name) = mw_fold(?)'),
    // Refused when a name equal under Unicode case folding exists: on a case-insensitive file
    // system their tile and style folders would be one folder. One statement, so two racing
    // creates cannot both pass.
    insert: db.prepare(`INSERT INTO workspaces (name, namespace_uri, isolated, created_at)
      SELECT @name, @uri, @isolated, @at WHERE NOT EXISTS (SELECT 1 FROM workspaces WHERE mw_fold(name) = mw_fold(@name))`),
    update: db.prepare('UPDATE workspaces SET name = ?, namespace_uri = ?, isolated = ? WHERE name = ?'),
    stores: db.prepare('SELECT count(*) FROM stores WHERE workspace = ?').pluck(),
    remove: db.prepare('DELETE FROM workspaces WHERE name = ?')
  }
  const hasStyles = (db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'styles'").pluck().get() as number) > 0
  const styles = hasStyles ? db.prepare('SELECT count(*) FROM styles WHERE workspace = ?').pluck() : undefined
  return {
    async list () { return (q.list.all() as any[]).map(rowTo) },
    async get (name) { const r = q.get.get(name) as any; return r ? rowTo(r) : undefined },
    async getFolded (name) { const r = q.getFolded.get(name) as any; return r ? rowTo(r) : undefined },
    async insert (ws) {
      return q.insert.run({ name: ws.name, uri: ws.namespaceUri, isolated: ws.isolated ? 1 : 0, at: new Date().toISOString() }).changes === 1
    },
    async update (name, ws) { q.update.run(ws.name, ws.namespaceUri, ws.isolated ? 1 : 0, name) },
    async contents (name) { return (q.stores.get(name) as number) + ((styles?.get(name) as number | undefined) ?? 0) },
    async remove (name) { q.remove.run(name) }
  }
}

export type WorkspaceRemovedHook = (name: string) => Promise<void> | void

export function createWorkspaceService ({ store, namespaceBase, fault = noFaults }: { store: WorkspaceStore, namespaceBase: string, fault?: FaultPoint }) {
  const removedHooks: WorkspaceRemovedHook[] = []
  // Every client lists workspaces first and often; this process is the catalog's only writer, so the
  // list is kept until the next change through this service.
  let listed: Promise<Workspace[]> | undefined
  const changed = () => { listed = undefined }
  const require = async (name: string) => {
    const ws = await store.get(name)
    if (!ws) throw WorkspaceNotFound(name)
    return ws
  }
  return {
    list: () => (listed ??= store.list().catch((err) => { listed = undefined; throw err })),
    get: require,
    async exists (name: string) { return (await store.get(name)) !== undefined },
    async create (input: { name?: unknown, isolated?: unknown }) {
      onlyFields(input, 'workspace', WORKSPACE_FIELDS, WORKSPACE_READ_ONLY)
      const name = checkName(input.name, 'workspace')
      const ws = { name, namespaceUri: `${namespaceBase}/${encodeURIComponent(name)}`, isolated: input.isolated === undefined ? false : isolatedFlag(input.isolated) }
      fault('workspace.beforeCommit')
      if (!(await store.insert(ws))) throw WorkspaceExists(name)
      changed()
      fault('workspace.afterCommit')
      return ws
    },
    async update (name: string, input: { name?: unknown, isolated?: unknown }) {
      onlyFields(input, 'workspace', WORKSPACE_FIELDS, WORKSPACE_READ_ONLY)
      const old = await require(name)
      const next = {
        ...old,
        name: input.name === undefined ? old.name : checkName(input.name, 'workspace'),
        isolated: input.isolated === undefined ? old.isolated : isolatedFlag(input.isolated)
      }
      if (next.name !== old.name) {
        // Renaming would orphan stores, styles and tile sets; GeoServer refuses it for non-empty ones too.
        if (await store.contents(name) > 0) throw WorkspaceNotEmpty()
        const same = await store.getFolded(next.name)
        if (same && same.name !== old.name) throw WorkspaceExists(next.name)
        next.namespaceUri = `${namespaceBase}/${encodeURIComponent(next.name)}`
      }
      await store.update(name, next)
      changed()
      return next
    },
    async remove (name: string, recurse: boolean) {
      await require(name)
      if (!recurse && await store.contents(name) > 0) throw WorkspaceNotEmpty()
      await store.remove(name)
      changed()
      for (const hook of removedHooks) await hook(name)
    },
    /** Areas register clean-up of their files for a removed workspace (styles, granules, tiles). */
    onRemoved (hook: WorkspaceRemovedHook) { removedHooks.push(hook) }
  }
}
export type WorkspaceService = ReturnType<typeof createWorkspaceService>
