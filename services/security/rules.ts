// Layer access rules as GeoServer's DataAccessRuleDAO has them: `workspace.layer.mode=role1,role2`,
// mode r (read), w (write) or a (admin, workspace-wide). Keys and role lists are validated with
// GeoServer's messages (DataAccessController.validateRuleKey); a request is validated whole before
// anything is stored, and every change is one call of the rule store (services/security/store.ts).
import { InvalidRule, TooManyRules } from '../errors.js'

export type RuleMode = 'r' | 'w' | 'a'
export type CatalogMode = 'HIDE' | 'MIXED' | 'CHALLENGE'
export const CATALOG_MODES: CatalogMode[] = ['HIDE', 'MIXED', 'CHALLENGE']
export const ANY = '*'
/** Most rules the store keeps (a body with 100 000 rules is refused, not half stored). */
export const MAX_RULES = 10_000

export interface Rule { workspace: string, layer: string, mode: RuleMode, roles: string[] }

const MODES: RuleMode[] = ['r', 'w', 'a']
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/

export const ruleKey = (r: Pick<Rule, 'workspace' | 'layer' | 'mode'>) => `${r.workspace}.${r.layer}.${r.mode}`

/** GeoServer splits on dots, ignoring spaces around them. */
function elements (key: string): string[] {
  return key.trim().split(/\s*\.\s*/)
}

/** The message GeoServer answers for an invalid key, or undefined when the key is valid. */
export function validateRuleKey (key: string): string | undefined {
  const parts = elements(key)
  // Empty parts (`ws..r`) and control characters are refused too (GeoServer would store them).
  if (parts.length !== 3 || parts.some((p) => p === '' || CONTROL.test(p))) {
    return `Invalid rule ${key}, the expected format is workspace.layer.mode=role1,role2,...`
  }
  const [workspace, layer, mode] = parts
  if (!MODES.includes(mode as RuleMode)) return `Unknown access mode ${mode} in ${key}`
  if (workspace === ANY && layer !== ANY) {
    return `Invalid rule ${key}, when namespace is * then also layer must be *.`
  }
  if (mode === 'a' && layer !== ANY) {
    return `Invalid rule ${key}, admin (a) privileges may only be applied globally to a workspace, layer must be *.`
  }
  return undefined
}

export function parseRuleKey (key: string): Pick<Rule, 'workspace' | 'layer' | 'mode'> {
  const msg = validateRuleKey(key)
  if (msg) throw InvalidRule(msg)
  const [workspace, layer, mode] = elements(key)
  return { workspace, layer, mode: mode as RuleMode }
}

/**
 * "a,,b, ,, c" -> [a, b, c]; any `*` collapses the list to [*] (everyone, anonymous included).
 * Refused (GeoServer would store them): control characters such as a newline, which in a
 * properties file would inject a rule, and an empty list, which GeoServer reads as everyone.
 */
export function parseRoles (key: string, value: unknown): string[] {
  if (typeof value !== 'string') throw InvalidRule(`Invalid rule ${key}, the role list must be a comma separated string`)
  if (/[\r\n\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u2028\u2029]/.test(value)) {
    throw InvalidRule(`Invalid rule ${key}, the role list contains a line break or control character`)
  }
  const roles = [...new Set(value.split(/[\s,]+/).filter(Boolean))]
  if (roles.length === 0) throw InvalidRule(`Invalid rule ${key}, the role list is empty; use * for everyone`)
  return roles.includes(ANY) ? [ANY] : roles
}

/** Validates every entry of a request body before anything is stored. */
export function parseRuleEntries (entries: Array<[string, unknown]>): Rule[] {
  if (entries.length > MAX_RULES) throw TooManyRules(entries.length, MAX_RULES)
  const out = new Map<string, Rule>()
  for (const [key, value] of entries) {
    const rule = { ...parseRuleKey(key), roles: parseRoles(key, value) }
    out.set(ruleKey(rule), rule)
  }
  return [...out.values()]
}

const rank = (s: string) => (s === ANY ? 0 : 1)
/** DataAccessRule.compareTo: `*` before names, then workspace, layer, and r before w before a. */
export function compareRules (a: Rule, b: Rule): number {
  return rank(a.workspace) - rank(b.workspace) || a.workspace.localeCompare(b.workspace, 'en') ||
    rank(a.layer) - rank(b.layer) || a.layer.localeCompare(b.layer, 'en') ||
    MODES.indexOf(a.mode) - MODES.indexOf(b.mode)
}
