// MAPWARDEN_FAULT_KILL_AT parsing and counting (services/faults.ts); the kill itself is proved by
// test/crash/ on the built server.
import t from 'tap'
import { createFaults, parseFaultList, FAULT_POINTS } from '../../services/faults.js'
import { resolveConfig, ConfigError } from '../../plugins/infra/config.js'

t.test('a fault list names points, optionally the n-th time, separated by , or |', async (t) => {
  t.same(parseFaultList('style.beforeRename|quota.beforeFlush@3, tile.afterRename'), [
    { name: 'style.beforeRename', nth: 1 }, { name: 'quota.beforeFlush', nth: 3 }, { name: 'tile.afterRename', nth: 1 }
  ])
  t.throws(() => parseFaultList('style.beforRename'), /unknown fault point "style.beforRename"/)
  t.throws(() => parseFaultList('style.beforeRename@0'), /unknown fault point/)
  t.throws(() => resolveConfig({ env: { MAPWARDEN_FAULT_KILL_AT: 'nope' } }), ConfigError)
  t.same(resolveConfig({ env: { MAPWARDEN_FAULT_KILL_AT: 'acl.afterCommit@2' } }).faultKillAt, [{ name: 'acl.afterCommit', nth: 2 }])
  t.equal(resolveConfig({ env: {} }).faultKillAt, undefined, 'unset by default')
})

t.test('a point fires exactly at its n-th passage, and never without a list', async (t) => {
  const hits: string[] = []
  const fault = createFaults(parseFaultList('acl.afterCommit@2,style.afterRow'), (name) => hits.push(name))
  fault('acl.afterCommit')
  t.same(hits, [])
  fault('acl.afterCommit')
  t.same(hits, ['acl.afterCommit'])
  fault('acl.afterCommit')
  fault('style.afterRow')
  t.same(hits, ['acl.afterCommit', 'style.afterRow'])
  const none = createFaults(undefined, () => { throw new Error('never') })
  for (const p of FAULT_POINTS) none(p)
  t.pass('no list: every point is a no-op')
})
