// Who may read and write which layer: the enforcement side of the layer rules and catalog mode.
//
// Semantics (GeoServer's DefaultResourceAccessManager / SecureTreeNode, security/layer.rst):
// - the rule for a mode is looked up most specific first: `ws.layer.m`, then `ws.*.m`, then `*.*.m`;
//   a more specific rule replaces the less specific one (it does not add to it);
// - a caller matches a rule when its role list holds `*` or one of the caller's roles; every caller
//   has ROLE_ANONYMOUS or ROLE_AUTHENTICATED besides its own roles, so the least restrictive of a
//   user's roles wins;
// - `ws.*.a` (admin) grants read and write on the whole workspace; write does not imply read;
// - the ADMIN role (and ROLE_ADMINISTRATOR) may do everything;
// - a mode with no rule anywhere is refused to all but administrators (GeoServer would allow
//   everyone: deleting `*.*.w` must not open writes to the world).
// The catalog mode decides what a refused read looks like: HIDE (the layer does not exist),
// MIXED (absent from lists, a direct request is challenged), CHALLENGE (listed and its metadata
// readable, data requests challenged). A challenge only makes sense for an anonymous caller: a
// caller who already authenticated is denied (403) instead.
import type { Principal } from '../auth/authenticator.js'
import { ADMIN_ROLES, ANONYMOUS_ROLE, AUTHENTICATED_ROLE } from '../auth/roles.js'
import { LayerChallenge, LayerDenied, LayerHidden, RuleNotFound } from '../errors.js'
import { createKeyedQueue } from '../keyed-queue.js'
import { noFaults, type FaultPoint } from '../faults.js'
import { ANY, CATALOG_MODES, compareRules, parseRuleKey, type CatalogMode, type Rule, type RuleMode, ruleKey } from './rules.js'
import type { RuleStore } from './store.js'

export type Decision = 'allow' | 'hide' | 'challenge' | 'deny'
export type Access = 'r' | 'w'
/**
 * What the caller is doing with the layer:
 * - 'data': tiles, granules, a seed or truncate request, an upload (the default);
 * - 'metadata': a direct request for the layer's description (REST GET of the layer, its style);
 * - 'list': whether to include the layer in a listing or a capabilities document.
 */
export type Usage = 'data' | 'metadata' | 'list'


export interface CheckOptions {
  usage?: Usage
  /** The error a hidden layer answers with; default `No such layer: ws:layer` (404). Use your
   *  area's own not-found error so a hidden layer and a missing one look the same. */
  notFound?: () => Error
}

export interface LayerAccessDeps {
  rules: RuleStore
  fault?: FaultPoint
}

const CATALOG_MODE = 'catalogMode'

/** Decisions read an in-memory copy of the rules and the catalog mode, loaded here and again after each change. */
export async function createLayerAccess ({ rules, fault = noFaults }: LayerAccessDeps) {
  let table = new Map<string, Set<string>>()
  let mode: CatalogMode = 'HIDE'

  async function load () {
    const [stored, storedMode] = await Promise.all([rules.list(), rules.getSetting(CATALOG_MODE)])
    table = new Map(stored.map((r) => [ruleKey(r), new Set(r.roles)]))
    mode = CATALOG_MODES.includes(storedMode as CatalogMode) ? storedMode as CatalogMode : 'HIDE'
  }
  await load()
  // A change and the reload after it run one at a time, so a slower reload never installs older rules.
  const serialized = createKeyedQueue()
  const change = <T>(write: () => Promise<T>): Promise<T> => serialized('rules', async () => {
    try { return await write() } finally { await load() }
  })
  const reload = () => change(async () => undefined)

  const isAdmin = (p: Principal) => p.roles.some((r) => ADMIN_ROLES.includes(r))

  function matches (p: Principal, roles: Set<string> | undefined): boolean {
    if (!roles) return false
    if (roles.has(ANY)) return true
    if (roles.has(p.anonymous ? ANONYMOUS_ROLE : AUTHENTICATED_ROLE)) return true
    return p.roles.some((r) => roles.has(r))
  }

  /** The rule that governs `mode` on the layer: most specific first. */
  function governing (workspace: string, layer: string, m: RuleMode): Set<string> | undefined {
    if (m !== 'a' && layer !== ANY) {
      const own = table.get(`${workspace}.${layer}.${m}`)
      if (own) return own
    }
    return table.get(`${workspace}.${ANY}.${m}`) ?? table.get(`${ANY}.${ANY}.${m}`)
  }

  /** Whether the caller holds the permission, before the catalog mode is applied. */
  function permits (p: Principal, workspace: string, layer: string, access: Access): boolean {
    if (isAdmin(p)) return true
    return matches(p, governing(workspace, layer, access)) || matches(p, governing(workspace, ANY, 'a'))
  }

  function refusedRead (p: Principal, usage: Usage): Decision {
    let d: Decision
    if (mode === 'HIDE') d = 'hide'
    else if (mode === 'MIXED') d = usage === 'list' ? 'hide' : 'challenge'
    else d = usage === 'data' ? 'challenge' : 'allow' // CHALLENGE: listed, metadata readable
    return d === 'challenge' && !p.anonymous ? 'deny' : d
  }

  function decide (p: Principal, workspace: string, layer: string, access: Access, usage: Usage = 'data'): Decision {
    if (permits(p, workspace, layer, access)) return 'allow'
    if (access === 'r') return refusedRead(p, usage)
    // A refused write: a layer the caller cannot even read stays as hidden as a read would be.
    if (!permits(p, workspace, layer, 'r')) {
      const d = refusedRead(p, 'data')
      if (d !== 'allow') return d
    }
    return p.anonymous ? 'challenge' : 'deny'
  }

  function errorFor (d: Exclude<Decision, 'allow'>, workspace: string, layer: string, access: Access, opts: CheckOptions): Error {
    const name = layer === ANY ? workspace : `${workspace}:${layer}`
    if (d === 'hide') return opts.notFound ? opts.notFound() : LayerHidden(name)
    if (d === 'challenge') return LayerChallenge(name)
    return LayerDenied(access === 'r' ? 'read' : 'write', name)
  }

  return {
    decide,
    /** Throws the error a direct request answers with (404 hidden, 401 challenge, 403 denied). */
    check (p: Principal, workspace: string, layer: string, access: Access, opts: CheckOptions = {}): void {
      const d = decide(p, workspace, layer, access, opts.usage ?? 'data')
      if (d !== 'allow') throw errorFor(d, workspace, layer, access, opts)
    },
    /** The items the caller may see listed (for layer lists and capabilities documents). */
    visible<T> (p: Principal, items: T[], nameOf: (item: T) => { workspace: string, layer: string }): T[] {
      return items.filter((item) => {
        const { workspace, layer } = nameOf(item)
        return decide(p, workspace, layer, 'r', 'list') === 'allow'
      })
    },
    isAdmin,
    catalogMode: () => mode,
    // Changes go through here so the in-memory table follows the store.
    async rules (): Promise<Rule[]> { return (await rules.list()).sort(compareRules) },
    addRules (added: Rule[]) { return change(async () => { await rules.add(added); fault('acl.afterCommit') }) },
    updateRules (changed: Rule[]) { return change(async () => { await rules.update(changed); fault('acl.afterCommit') }) },
    removeRule (key: string) {
      const k = parseRuleKey(key)
      return change(async () => { if (!(await rules.remove(k))) throw RuleNotFound(key) })
    },
    /** Drops the rules of a deleted workspace (GeoServer's SecuredResourceNameChangeListener), so a
     *  new workspace of the same name does not inherit them. Returns how many were removed. */
    removeWorkspaceRules (workspace: string): Promise<number> {
      return workspace === ANY ? Promise.resolve(0) : change(() => rules.removeWorkspace(workspace))
    },
    setCatalogMode (m: CatalogMode) {
      return change(async () => {
        fault('catalogMode.beforeCommit')
        await rules.setSetting(CATALOG_MODE, m)
        fault('catalogMode.afterCommit')
      })
    },
    reload
  }
}
export type LayerAccess = Awaited<ReturnType<typeof createLayerAccess>>
