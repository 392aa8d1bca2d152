// The RuleStore contract (services/security/store.ts), the same cases on SQLite and PostgreSQL:
// adding, updating and removing rules with their all-or-nothing errors, the rule limit, settings,
// and the acl.beforeCommit fault point inside the transaction. On PostgreSQL also two nodes racing
// to add the same rule or past the limit, and the changes announced to other nodes.
import t from 'tap'
import { createSqliteRuleStore } from '../../../services/security/sqlite-store.js'
import { createPgRuleStore } from '../../../services/security/pg-store.js'
import { MAX_RULES, ruleKey, type Rule } from '../../../services/security/rules.js'
import type { RuleStore } from '../../../services/security/store.js'
import type { FaultPoint } from '../../../services/faults.js'
import { BACKENDS, openBackend, openPg, outcomes, recordChanges, secondNode, type Opened } from '../../fixtures/backends.js'

const ruleStore = (o: Opened, fault?: FaultPoint): RuleStore => o.backend === 'pg' ? createPgRuleStore(o.db, fault) : createSqliteRuleStore(o.db, fault)

const DEFAULTS: Rule[] = [
  { workspace: '*', layer: '*', mode: 'r', roles: ['*'] },
  { workspace: '*', layer: '*', mode: 'w', roles: ['GROUP_ADMIN', 'ADMIN'] }
]
const rule = (workspace: string, layer: string, mode: Rule['mode'], ...roles: string[]): Rule => ({ workspace, layer, mode, roles })
/** The store lists in no particular order: compare by key. */
const sorted = (rules: Rule[]) => [...rules].sort((a, b) => ruleKey(a) < ruleKey(b) ? -1 : 1)
/** `n` distinct rules of workspace `ws`. */
const many = (ws: string, n: number) => Array.from({ length: n }, (_, i) => rule(ws, `layer${i}`, 'r', 'ROLE_R'))

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('rules: add, update, remove; a request with one bad key changes nothing', async (t) => {
      const rules = ruleStore(await openBackend(t, backend))
      t.same(sorted(await rules.list()), DEFAULTS, 'the shipped defaults')
      await rules.add([rule('topp', '*', 'r', 'ROLE_A'), rule('topp', 'states', 'w', 'ROLE_A', 'ROLE_B')])
      await t.rejects(rules.add([rule('nurc', '*', 'r', 'X'), rule('topp', 'states', 'w', 'X'), rule('*', '*', 'r', 'X')]),
        { code: 'MW_SECURITY_RULES_EXIST', message: /topp\.states\.w,\*\.\*\.r/ })
      await t.rejects(rules.update([rule('topp', '*', 'r', 'X'), rule('nurc', '*', 'a', 'X')]), { code: 'MW_SECURITY_UNKNOWN_RULES', message: /nurc\.\*\.a/ })
      t.same(sorted(await rules.list()), sorted([...DEFAULTS, rule('topp', '*', 'r', 'ROLE_A'), rule('topp', 'states', 'w', 'ROLE_A', 'ROLE_B')]), 'nothing of the refused requests')
      await rules.update([rule('topp', '*', 'r', 'ROLE_C'), rule('*', '*', 'w', 'ADMIN'), rule('topp', '*', 'r', 'ROLE_D')])
      t.same(sorted(await rules.list()), sorted([rule('*', '*', 'r', '*'), rule('*', '*', 'w', 'ADMIN'), rule('topp', '*', 'r', 'ROLE_D'), rule('topp', 'states', 'w', 'ROLE_A', 'ROLE_B')]),
        'a key given twice keeps its last roles')
      t.equal(await rules.remove({ workspace: 'topp', layer: '*', mode: 'r' }), true)
      t.equal(await rules.remove({ workspace: 'topp', layer: '*', mode: 'r' }), false)
      await rules.add([rule('nurc', 'a', 'r', 'X'), rule('nurc', 'b', 'w', 'X')])
      t.equal(await rules.removeWorkspace('nurc'), 2)
      t.equal(await rules.removeWorkspace('nurc'), 0)
      t.same(sorted(await rules.list()), sorted([rule('*', '*', 'r', '*'), rule('*', '*', 'w', 'ADMIN'), rule('topp', 'states', 'w', 'ROLE_A', 'ROLE_B')]))
    })

    t.test(`rules: at most ${MAX_RULES}`, async (t) => {
      const rules = ruleStore(await openBackend(t, backend))
      await rules.add(many('big', MAX_RULES - DEFAULTS.length - 1))
      await t.rejects(rules.add(many('more', 2)), { code: 'MW_SECURITY_TOO_MANY_RULES', message: `Too many rules: ${MAX_RULES + 1}, at most ${MAX_RULES} are allowed` })
      await rules.add(many('more', 1))
      t.equal((await rules.list()).length, MAX_RULES)
    })

    t.test('settings: read, written, overwritten', async (t) => {
      const rules = ruleStore(await openBackend(t, backend))
      t.equal(await rules.getSetting('catalogMode'), 'HIDE', 'the shipped default')
      t.equal(await rules.getSetting('masterPassword'), undefined)
      await rules.setSetting('catalogMode', 'MIXED')
      await rules.setSetting('masterPassword', 'sealed')
      await rules.setSetting('catalogMode', 'CHALLENGE')
      t.equal(await rules.getSetting('catalogMode'), 'CHALLENGE')
      t.equal(await rules.getSetting('masterPassword'), 'sealed')
    })

    t.test('acl.beforeCommit is reached after the writes, inside the transaction: a crash there keeps nothing', async (t) => {
      const o = await openBackend(t, backend)
      const reached: string[] = []
      const crashing = ruleStore(o, (name) => { reached.push(name); throw new Error(`killed at ${name}`) })
      await t.rejects(crashing.add([rule('topp', '*', 'r', 'ROLE_A')]), { message: 'killed at acl.beforeCommit' })
      await t.rejects(crashing.update([rule('*', '*', 'r', 'ROLE_A')]), { message: 'killed at acl.beforeCommit' })
      t.same(reached, ['acl.beforeCommit', 'acl.beforeCommit'])
      t.same(sorted(await ruleStore(o).list()), DEFAULTS, 'both rolled back')
      await t.rejects(crashing.add([rule('*', '*', 'r', 'X')]), { code: 'MW_SECURITY_RULES_EXIST' })
      t.equal(reached.length, 2, 'a refused request stops before the point')
    })

    if (backend === 'pg') {
      t.test('two nodes adding the same rule at once: one adds it, the other is told it exists', async (t) => {
        const o = await openPg(t)
        const a = createPgRuleStore(o.db)
        const b = createPgRuleStore(secondNode(t, o.url))
        for (let round = 0; round < 5; round++) {
          const { ok, failed } = await outcomes([
            a.add([rule(`ws${round}`, 'x', 'r', 'ROLE_A'), rule(`ws${round}`, 'only-a', 'r', 'ROLE_A')]),
            b.add([rule(`ws${round}`, 'x', 'r', 'ROLE_B'), rule(`ws${round}`, 'only-b', 'r', 'ROLE_B')])
          ])
          t.equal(ok.length, 1, `round ${round}: one added`)
          t.same(failed, ['MW_SECURITY_RULES_EXIST'], `round ${round}: the other refused`)
          const mine = (await a.list()).filter((r) => r.workspace === `ws${round}`)
          t.equal(mine.length, 2, `round ${round}: only the winner's rules`)
          t.equal(new Set(mine.map((r) => r.roles[0])).size, 1, `round ${round}: all of one request`)
        }
      })

      t.test('two nodes each adding rules within the limit alone, past it together: one is refused', async (t) => {
        const o = await openPg(t)
        const a = createPgRuleStore(o.db)
        const b = createPgRuleStore(secondNode(t, o.url))
        await a.add(many('big', MAX_RULES - DEFAULTS.length - 10))
        for (let round = 0; round < 3; round++) {
          const { ok, failed } = await outcomes([a.add(many(`a${round}`, 6)), b.add(many(`b${round}`, 6))])
          t.equal(ok.length, 1, `round ${round}: one added`)
          t.same(failed, ['MW_SECURITY_TOO_MANY_RULES'], `round ${round}: the other refused`)
          t.equal((await a.list()).length, MAX_RULES - 4)
          await a.removeWorkspace(`a${round}`)
          await a.removeWorkspace(`b${round}`)
        }
      })

      t.test('writes announce "rules" and "settings" to other nodes; refused and empty ones nothing', async (t) => {
        const o = await openPg(t)
        const rules = createPgRuleStore(o.db)
        const changes = await recordChanges(t, o.url, o.db)
        await rules.add([rule('topp', '*', 'r', 'A')])
        await rules.add([rule('nurc', '*', 'r', 'A'), rule('nurc', 'dem', 'r', 'A')])
        await t.rejects(rules.add([rule('topp', '*', 'r', 'A')]), { code: 'MW_SECURITY_RULES_EXIST' })
        await rules.update([rule('topp', '*', 'r', 'B')])
        await t.rejects(rules.update([rule('sf', '*', 'r', 'B')]), { code: 'MW_SECURITY_UNKNOWN_RULES' })
        await rules.remove({ workspace: 'topp', layer: '*', mode: 'r' })
        await rules.remove({ workspace: 'topp', layer: '*', mode: 'r' })
        await rules.removeWorkspace('nurc')
        await rules.removeWorkspace('nurc')
        await rules.setSetting('catalogMode', 'MIXED')
        t.same(await changes.settle(), [
          { topic: 'rules', key: 'topp.*.r' },
          { topic: 'rules' },
          { topic: 'rules', key: 'topp.*.r' },
          { topic: 'rules', key: 'topp.*.r' },
          { topic: 'rules' },
          { topic: 'settings', key: 'catalogMode' }
        ])
      })
    }
  })
}
