// Rows of security_rules as the rule stores return them, shared by the SQLite and PostgreSQL
// stores: the access column is the rule's mode, roles a JSON array.
import type { Rule, RuleMode } from './rules.js'

export interface RuleRow { workspace: string, layer: string, access: RuleMode, roles: string }

export const RULE_SELECT = 'SELECT workspace, layer, access, roles FROM security_rules'

export const ruleFromRow = (r: RuleRow): Rule => ({ workspace: r.workspace, layer: r.layer, mode: r.access, roles: JSON.parse(r.roles) as string[] })
