// The SQLite rule store: each change one statement or one transaction.
import type { Db } from '../storage/sqlite/database.js'
import { noFaults, type FaultPoint } from '../faults.js'
import { RulesExist, TooManyRules, UnknownRules } from '../errors.js'
import { MAX_RULES, ruleKey, type Rule } from './rules.js'
import { RULE_SELECT, ruleFromRow, type RuleRow } from './store-rows.js'
import type { RuleStore } from './store.js'

export function createSqliteRuleStore (db: Db, fault: FaultPoint = noFaults): RuleStore {
  const q = {
    all: db.prepare(RULE_SELECT),
    count: db.prepare('SELECT count(*) FROM security_rules').pluck(),
    exists: db.prepare('SELECT 1 FROM security_rules WHERE workspace = ? AND layer = ? AND access = ?').pluck(),
    insert: db.prepare('INSERT INTO security_rules (workspace, layer, access, roles) VALUES (?, ?, ?, ?)'),
    update: db.prepare('UPDATE security_rules SET roles = ? WHERE workspace = ? AND layer = ? AND access = ?'),
    remove: db.prepare('DELETE FROM security_rules WHERE workspace = ? AND layer = ? AND access = ?'),
    removeWorkspace: db.prepare('DELETE FROM security_rules WHERE workspace = ?'),
    getSetting: db.prepare('SELECT value FROM security_settings WHERE key = ?').pluck(),
    setSetting: db.prepare('INSERT INTO security_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
  }
  const exists = (r: Rule) => q.exists.get(r.workspace, r.layer, r.mode) !== undefined

  const add = db.transaction((rules: Rule[]) => {
    const existing = rules.filter(exists)
    if (existing.length) throw RulesExist(existing.map(ruleKey).join(','))
    const total = (q.count.get() as number) + rules.length
    if (total > MAX_RULES) throw TooManyRules(total, MAX_RULES)
    for (const r of rules) q.insert.run(r.workspace, r.layer, r.mode, JSON.stringify(r.roles))
    fault('acl.beforeCommit') // a kill here rolls the whole request back
  })
  const update = db.transaction((rules: Rule[]) => {
    const unknown = rules.filter((r) => !exists(r))
    if (unknown.length) throw UnknownRules(unknown.map(ruleKey).join(','))
    for (const r of rules) q.update.run(JSON.stringify(r.roles), r.workspace, r.layer, r.mode)
    fault('acl.beforeCommit')
  })

  return {
    async list () {
      return (q.all.all() as RuleRow[]).map(ruleFromRow)
    },
    async add (rules) { add(rules) },
    async update (rules) { update(rules) },
    async remove (k) { return q.remove.run(k.workspace, k.layer, k.mode).changes > 0 },
    async removeWorkspace (workspace) { return q.removeWorkspace.run(workspace).changes },
    async getSetting (key) { return q.getSetting.get(key) as string | undefined },
    async setSetting (key, value) { q.setSetting.run(key, value) }
  }
}
