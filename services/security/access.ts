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
//   everyone: rule 3 of DECISIONS.md, deleting `*.*.w` must not open writes to the world).
// The catalog mode decides what a refused read looks like: HIDE (the layer does not exist),
// MIXED (absent from lists, a direct request is challenged), CHALLENGE (listed and its metadata
// readable, data requests challenged). A challenge only makes sense for an anonymous caller: a
// caller who already authenticated is denied (403) instead.
import type { Principal } from '../auth/authenticator.js'
import { LayerChallenge, LayerDenied, LayerHidden } from '../errors.js'
import { ANY, type CatalogMode, type Rule, type RuleMode, type RuleStore, ruleKey } from './rules.js'

export type Decision = 'allow' | 'hide' | 'challenge' | 'deny'
export type Access = 'r' | 'w'
/**
 * What the caller is doing with the layer:
 * - 'data': tiles, granules, a seed or truncate request, an upload (the default);
 * - 'metadata': a direct request for the layer's description (REST GET of the layer, its style);
 * - 'list': whether to include the layer in a listing or a capabilities document.
 */
export type Usage = 'data' | 'metadata' | 'list'

export const ANONYMOUS_ROLE = 'ROLE_ANONYMOUS'
export const AUTHENTICATED_ROLE = 'ROLE_AUTHENTICATED'
/** The roles that administer everything (GeoServer's ADMIN and ROLE_ADMINISTRATOR): defined here only. */
export const ADMIN_ROLES = ['ADMIN', 'ROLE_ADMINISTRATOR']

export interface CheckOptions {
  usage?: Usage
  /** The error a hidden layer answers with; default `No such layer: ws:layer` (404). Use your
   *  area's own not-found error so a hidden layer and a missing one look the same. */
  notFound?: () => Error
}

export interface LayerAccessDeps {
  rules: RuleStore
  adminRoles?: string[]
}

export function createLayerAccess ({ rules, adminRoles = ADMIN_ROLES }: LayerAccessDeps) {
  let table = new Map<string, Set<string>>()
  let mode: CatalogMode = 'HIDE'

  function reload () {
    const next = new Map<string, Set<string>>()
    for (const r of rules.list()) next.set(ruleKey(r), new Set(r.roles))
    table = next
    mode = rules.catalogMode()
  }
  reload()

  const isAdmin = (p: Principal) => p.roles.some((r) => adminRoles.includes(r))

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
    // Changes go through here so the in-memory table follows the database.
    rules: () => rules.list(),
    addRules (list: Rule[]) { rules.add(list); reload() },
    updateRules (list: Rule[]) { rules.update(list); reload() },
    removeRule (key: string) { rules.remove(key); reload() },
    removeWorkspaceRules (workspace: string): number { const n = rules.removeWorkspace(workspace); reload(); return n },
    setCatalogMode (m: CatalogMode) { rules.setCatalogMode(m); reload() },
    reload
  }
}
export type LayerAccess = ReturnType<typeof createLayerAccess>
