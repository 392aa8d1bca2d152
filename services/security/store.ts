// The security rule store: layer access rules (security_rules) and the security settings
// (security_settings: the catalog mode, the encrypted master password). Every method is one
// atomic unit of work; a refused request changes nothing.
import type { Rule } from './rules.js'

export interface RuleStore {
  /** Every rule, in no particular order. */
  list (): Promise<Rule[]>
  /** Adds new rules; throws RulesExist when any key exists, TooManyRules past MAX_RULES. */
  add (rules: Rule[]): Promise<void>
  /** Replaces the role lists of existing rules; throws UnknownRules when any key is missing. */
  update (rules: Rule[]): Promise<void>
  /** False when there is no such rule. */
  remove (rule: Pick<Rule, 'workspace' | 'layer' | 'mode'>): Promise<boolean>
  /** Drops every rule of the workspace; returns how many there were. */
  removeWorkspace (workspace: string): Promise<number>
  getSetting (key: string): Promise<string | undefined>
  setSetting (key: string, value: string): Promise<void>
}
