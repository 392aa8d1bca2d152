// Workspaces: the first thing every GeoServer client touches. The service validates and names;
// the workspace store (services/catalog/store.ts) checks and writes each change in one unit.
import type { WorkspaceStore } from './store.js'
import { InvalidBody, WorkspaceExists, WorkspaceNotFound } from '../errors.js'
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

export type WorkspaceRemovedHook = (name: string) => Promise<void> | void

export function createWorkspaceService ({ store, namespaceBase, fault = noFaults }: { store: WorkspaceStore, namespaceBase: string, fault?: FaultPoint }) {
  const removedHooks: WorkspaceRemovedHook[] = []
  // Every client lists workspaces first and often: the list is kept until the next change, through
  // this service or (a shared database) announced by another instance (changedElsewhere).
  let listed: Promise<Workspace[]> | undefined
  const changed = () => { listed = undefined }
  const require = async (name: string) => {
    const ws = await store.get(name)
    if (!ws) throw WorkspaceNotFound(name)
    return ws
  }
  return {
    list: () => (listed ??= store.list().catch((err) => { listed = undefined; throw err })),
    /** Another instance changed the catalog: the next list reads it again. */
    changedElsewhere: changed,
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
      if (next.name !== old.name) next.namespaceUri = `${namespaceBase}/${encodeURIComponent(next.name)}`
      await store.update(name, next)
      changed()
      return next
    },
    async remove (name: string, recurse: boolean) {
      await store.remove(name, recurse)
      changed()
      for (const hook of removedHooks) await hook(name)
    },
    /** Areas register clean-up of their files for a removed workspace (styles, granules, tiles). */
    onRemoved (hook: WorkspaceRemovedHook) { removedHooks.push(hook) }
  }
}
export type WorkspaceService = ReturnType<typeof createWorkspaceService>
