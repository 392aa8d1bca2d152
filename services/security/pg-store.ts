// The PostgreSQL rule store, the counterpart of sqlite-store.ts: one transaction per method. Adding
// and updating rules check before they write (which keys exist, how many rules there are), so they
// run SERIALIZABLE: two nodes adding the same rule, or each adding rules up to the limit, cannot
// both pass the check; the one rolled back is retried and gets the error one-at-a-time would give.
// Rule changes announce 'rules' on the change bus (key: the rule, when one changed), settings
// 'settings' (key: the setting).
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import { noFaults, type FaultPoint } from '../faults.js'
import { RulesExist, TooManyRules, UnknownRules } from '../errors.js'
import { MAX_RULES, ruleKey, type Rule } from './rules.js'
import { RULE_SELECT, ruleFromRow, type RuleRow } from './store-rows.js'
import type { RuleStore } from './store.js'

type Key = Pick<Rule, 'workspace' | 'layer' | 'mode'>

/** Columns of rules as arrays, for unnest(): one statement for any number of rules. */
const columns = (rules: Rule[]) => [rules.map((r) => r.workspace), rules.map((r) => r.layer), rules.map((r) => r.mode), rules.map((r) => JSON.stringify(r.roles))]

export function createPgRuleStore (db: PgDatabase, fault: FaultPoint = noFaults): RuleStore {
  /** The keys among `rules` that have a row. */
  const existing = async (c: PgClient, rules: Rule[]): Promise<Set<string>> => {
    const [w, l, a] = columns(rules)
    const r = await c.query<RuleRow>(`SELECT s.workspace, s.layer, s.access FROM security_rules s
      JOIN unnest($1::text[], $2::text[], $3::text[]) AS n(workspace, layer, access)
      ON s.workspace = n.workspace AND s.layer = n.layer AND s.access = n.access`, [w, l, a])
    return new Set(r.rows.map((row) => ruleKey({ workspace: row.workspace, layer: row.layer, mode: row.access })))
  }
  const changedRules = (c: PgClient, rules: Key[]) => notify(c, { topic: 'rules', key: rules.length === 1 ? ruleKey(rules[0]) : undefined })

  return {
    async list () {
      return (await db.query<RuleRow>(RULE_SELECT)).rows.map(ruleFromRow)
    },
    async add (rules) {
      await db.transaction(async (c) => {
        const found = await existing(c, rules)
        const clash = rules.filter((r) => found.has(ruleKey(r)))
        if (clash.length) throw RulesExist(clash.map(ruleKey).join(','))
        const total = (await c.query<{ n: number }>('SELECT count(*) AS n FROM security_rules')).rows[0].n + rules.length
        if (total > MAX_RULES) throw TooManyRules(total, MAX_RULES)
        await c.query(`INSERT INTO security_rules (workspace, layer, access, roles)
          SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`, columns(rules))
        await changedRules(c, rules)
        fault('acl.beforeCommit') // a kill here rolls the whole request back
      }, { serializable: true })
    },
    async update (rules) {
      await db.transaction(async (c) => {
        const found = await existing(c, rules)
        const unknown = rules.filter((r) => !found.has(ruleKey(r)))
        if (unknown.length) throw UnknownRules(unknown.map(ruleKey).join(','))
        // A key given twice takes its last roles, as one update after the other would.
        const last = [...new Map(rules.map((r) => [ruleKey(r), r])).values()]
        await c.query(`UPDATE security_rules s SET roles = n.roles
          FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS n(workspace, layer, access, roles)
          WHERE s.workspace = n.workspace AND s.layer = n.layer AND s.access = n.access`, columns(last))
        await changedRules(c, rules)
        fault('acl.beforeCommit')
      }, { serializable: true })
    },
    async remove (k) {
      return await db.transaction(async (c) => {
        const r = await c.query('DELETE FROM security_rules WHERE workspace = $1 AND layer = $2 AND access = $3', [k.workspace, k.layer, k.mode])
        if (r.rowCount === 0) return false
        await changedRules(c, [k])
        return true
      })
    },
    async removeWorkspace (workspace) {
      return await db.transaction(async (c) => {
        const n = (await c.query('DELETE FROM security_rules WHERE workspace = $1', [workspace])).rowCount ?? 0
        if (n > 0) await changedRules(c, [])
        return n
      })
    },
    async getSetting (key) {
      return (await db.query<{ value: string }>('SELECT value FROM security_settings WHERE key = $1', [key])).rows[0]?.value
    },
    async setSetting (key, value) {
      await db.transaction(async (c) => {
        await c.query('INSERT INTO security_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value])
        await notify(c, { topic: 'settings', key })
      })
    }
  }
}
