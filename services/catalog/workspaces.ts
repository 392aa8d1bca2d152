// Workspaces: the first thing every GeoServer client touches. The service validates and names;
// the workspace store (services/catalog/store.ts) checks and writes each change in one unit.
import type { WorkspaceStore } from './store.js'
import {
  DefaultNamespaceDelete, InvalidBody, NamespaceExists, NamespaceNotEmpty, NamespaceNotFound, NamespaceRename, NamespaceToChangeNotFound,
  NamespaceToDeleteNotFound, WorkspaceExists, WorkspaceNotFound, isMapwardenError
} from '../errors.js'
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

// GeoServer's namespace representation: prefix (the workspace's name), uri, isolated.
const NAMESPACE_FIELDS = ['prefix', 'uri', 'isolated']

/** An absolute URI (a scheme, then something): what GeoServer's catalog accepts as a namespace URI. */
function namespaceUri (v: unknown): string {
  if (typeof v !== 'string' || v === '') throw InvalidBody('Namespace uri must not be null')
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:[^\s\u0000-\u001f]+$/.test(v) || v.length > 2048) {
    throw InvalidBody(`Invalid URI syntax for ${JSON.stringify(v.slice(0, 100))} in namespace`)
  }
  return v
}

export interface Workspace { name: string, namespaceUri: string, isolated: boolean }

/** GeoServer's NamespaceInfo: a workspace's other face (prefix = the workspace's name). */
export interface Namespace { prefix: string, uri: string, isolated: boolean }

const namespaceOf = (ws: Workspace): Namespace => ({ prefix: ws.name, uri: ws.namespaceUri, isolated: ws.isolated })

/** The name that stands for the default workspace or namespace in paths. */
export const DEFAULT = 'default'

export type WorkspaceRemovedHook = (name: string) => Promise<void> | void

export function createWorkspaceService ({ store, namespaceBase, fault = noFaults }: { store: WorkspaceStore, namespaceBase: string, fault?: FaultPoint }) {
  const removedHooks: WorkspaceRemovedHook[] = []
  // Every client lists workspaces first and often: the list is kept until the next change, through
  // this service or (a shared database) announced by another instance (changedElsewhere).
  let listed: Promise<Workspace[]> | undefined
  const changed = () => { listed = undefined }
  /** The namespace URI a workspace gets when it is created. */
  const defaultUri = (name: string) => `${namespaceBase}/${encodeURIComponent(name)}`
  const list = () => (listed ??= store.list().catch((err) => { listed = undefined; throw err }))
  const getDefault = async (): Promise<Workspace | undefined> => {
    const name = await store.defaultName()
    return name === undefined ? undefined : await store.get(name)
  }
  const require = async (name: string) => {
    const ws = await store.get(name)
    if (!ws) throw WorkspaceNotFound(name)
    return ws
  }
  return {
    list,
    /** Another instance changed the catalog: the next list reads it again. */
    changedElsewhere: changed,
    get: require,
    async exists (name: string) { return (await store.get(name)) !== undefined },
    /** Creates a workspace and its namespace (the default URI); `makeDefault`: it becomes the default. */
    async create (input: { name?: unknown, isolated?: unknown }, makeDefault = false) {
      onlyFields(input, 'workspace', WORKSPACE_FIELDS, WORKSPACE_READ_ONLY)
      const name = checkName(input.name, 'workspace')
      const ws = { name, namespaceUri: defaultUri(name), isolated: input.isolated === undefined ? false : isolatedFlag(input.isolated) }
      fault('workspace.beforeCommit')
      if (!(await store.insert(ws, makeDefault))) throw WorkspaceExists(name)
      changed()
      fault('workspace.afterCommit')
      return ws
    },
    /** The default workspace; none while there is no workspace. */
    getDefault,
    /** PUT workspaces/default: `{ name }` names the new default (GeoServer reads only the name). */
    async setDefault (input: { name?: unknown, isolated?: unknown }) {
      onlyFields(input, 'workspace', WORKSPACE_FIELDS, WORKSPACE_READ_ONLY)
      if (input.name === undefined) throw InvalidBody('workspace name is required to choose the default workspace')
      const name = checkName(input.name, 'workspace')
      await store.setDefault(name)
      return await require(name)
    },
    async update (name: string, input: { name?: unknown, isolated?: unknown }) {
      onlyFields(input, 'workspace', WORKSPACE_FIELDS, WORKSPACE_READ_ONLY)
      const old = await require(name)
      const next = {
        ...old,
        name: input.name === undefined ? old.name : checkName(input.name, 'workspace'),
        isolated: input.isolated === undefined ? old.isolated : isolatedFlag(input.isolated)
      }
      // A rename renames the namespace; a URI the namespace was given (PUT namespaces/<prefix>) stays.
      if (next.name !== old.name && old.namespaceUri === defaultUri(old.name)) next.namespaceUri = defaultUri(next.name)
      await store.update(name, next)
      changed()
      return next
    },
    async remove (name: string, recurse: boolean) {
      await store.remove(name, recurse)
      changed()
      for (const hook of removedHooks) await hook(name)
    },
    namespaces: {
      async list (): Promise<Namespace[]> { return (await list()).map(namespaceOf) },
      /** A namespace by prefix; `default` is the default namespace (the default workspace's). */
      async get (prefix: string): Promise<Namespace> {
        const ws = prefix === DEFAULT ? await getDefault() : await store.get(prefix)
        if (!ws) throw NamespaceNotFound(prefix)
        return namespaceOf(ws)
      },
      /** Creates a namespace and, with it, its workspace (GeoServer keeps the two in step). */
      async create (input: { prefix?: unknown, uri?: unknown, isolated?: unknown }) {
        onlyFields(input, 'namespace', NAMESPACE_FIELDS)
        if (input.prefix === undefined || input.prefix === '') throw InvalidBody('Namespace prefix must not be null')
        const prefix = checkName(input.prefix, 'namespace')
        const ws = { name: prefix, namespaceUri: namespaceUri(input.uri), isolated: input.isolated === undefined ? false : isolatedFlag(input.isolated) }
        if (!(await store.insert(ws))) throw NamespaceExists(prefix)
        changed()
        return namespaceOf(ws)
      },
      /**
       * PUT namespaces/<prefix>: the URI and isolated flag; the prefix cannot change (403).
       * PUT namespaces/default: `prefix` names the new default namespace, and so the default workspace.
       */
      async update (prefix: string, input: { prefix?: unknown, uri?: unknown, isolated?: unknown }) {
        onlyFields(input, 'namespace', NAMESPACE_FIELDS)
        if (prefix === DEFAULT) {
          if (input.prefix === undefined) throw InvalidBody('namespace prefix is required to choose the default namespace')
          const name = checkName(input.prefix, 'namespace')
          if ((await store.get(name)) === undefined) throw NamespaceNotFound(name)
          await store.setDefault(name)
          return
        }
        const old = await store.get(prefix)
        if (!old) throw NamespaceToChangeNotFound(prefix)
        if (input.prefix !== undefined && input.prefix !== prefix) throw NamespaceRename()
        const next = {
          ...old,
          namespaceUri: input.uri === undefined ? old.namespaceUri : namespaceUri(input.uri),
          isolated: input.isolated === undefined ? old.isolated : isolatedFlag(input.isolated)
        }
        await store.update(prefix, next)
        changed()
      },
      /** Deletes a namespace and its workspace; refused while stores or styles live in them. */
      async remove (prefix: string) {
        if (prefix === DEFAULT) throw DefaultNamespaceDelete()
        try {
          await store.remove(prefix, false)
        } catch (err) {
          if (isMapwardenError(err) && err.code === WorkspaceNotFound.code) throw NamespaceToDeleteNotFound(prefix)
          if (isMapwardenError(err) && err.code === 'MW_CORE_WORKSPACE_NOT_EMPTY') throw NamespaceNotEmpty()
          throw err
        }
        changed()
        for (const hook of removedHooks) await hook(prefix)
      }
    },
    /** Areas register clean-up of their files for a removed workspace (styles, granules, tiles). */
    onRemoved (hook: WorkspaceRemovedHook) { removedHooks.push(hook) }
  }
}
export type WorkspaceService = ReturnType<typeof createWorkspaceService>
