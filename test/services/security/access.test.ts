// The enforcement matrix: callers with different roles x the three catalog modes x read/write,
// on layers with their own rules, layers that inherit the defaults, and workspace admin rules.
import t from 'tap'
import { openDatabase } from '../../../services/storage/sqlite/database.js'
import { parseRuleEntries, type CatalogMode } from '../../../services/security/rules.js'
import { createSqliteRuleStore } from '../../../services/security/sqlite-store.js'
import { createLayerAccess, type Decision } from '../../../services/security/access.js'
import type { Principal } from '../../../services/auth/authenticator.js'
import { ANONYMOUS } from '../../../services/auth/authenticator.js'
import { isMapwardenError } from '../../../services/errors.js'
import { tempDir, type TestLike } from '../../helper.js'

const user = (name: string, ...roles: string[]): Principal => ({ name, roles, anonymous: false })
const P = {
  anon: ANONYMOUS,
  admin: user('admin', 'ADMIN'),
  reader: user('reader', 'ROLE_READER'),
  writer: user('writer', 'ROLE_WRITER'),
  wsadmin: user('wsadmin', 'ROLE_WSADMIN'),
  groupAdmin: user('ga', 'GROUP_ADMIN'),
  plain: user('plain')
}

async function setup (t: TestLike) {
  const db = openDatabase(tempDir(t))
  t.teardown(() => db.close())
  const access = await createLayerAccess({ rules: createSqliteRuleStore(db) })
  await access.addRules(parseRuleEntries([
    ['topp.secret.r', 'ROLE_READER'],
    ['topp.secret.w', 'ROLE_WRITER'],
    ['topp.*.a', 'ROLE_WSADMIN'],
    ['sf.*.r', 'ROLE_AUTHENTICATED']
  ]))
  return { db, access }
}

type Row = [keyof typeof P, string, 'r' | 'w', 'data' | 'metadata' | 'list', Record<CatalogMode, Decision>]
const all = (d: Decision): Record<CatalogMode, Decision> => ({ HIDE: d, MIXED: d, CHALLENGE: d })
const MATRIX: Row[] = [
  // A layer with its own read and write rules.
  ['admin', 'topp:secret', 'r', 'data', all('allow')],
  ['reader', 'topp:secret', 'r', 'data', all('allow')],
  ['wsadmin', 'topp:secret', 'r', 'data', all('allow')],
  ['writer', 'topp:secret', 'r', 'data', { HIDE: 'hide', MIXED: 'deny', CHALLENGE: 'deny' }],
  ['plain', 'topp:secret', 'r', 'data', { HIDE: 'hide', MIXED: 'deny', CHALLENGE: 'deny' }],
  ['anon', 'topp:secret', 'r', 'data', { HIDE: 'hide', MIXED: 'challenge', CHALLENGE: 'challenge' }],
  ['anon', 'topp:secret', 'r', 'metadata', { HIDE: 'hide', MIXED: 'challenge', CHALLENGE: 'allow' }],
  ['plain', 'topp:secret', 'r', 'metadata', { HIDE: 'hide', MIXED: 'deny', CHALLENGE: 'allow' }],
  ['anon', 'topp:secret', 'r', 'list', { HIDE: 'hide', MIXED: 'hide', CHALLENGE: 'allow' }],
  ['writer', 'topp:secret', 'r', 'list', { HIDE: 'hide', MIXED: 'hide', CHALLENGE: 'allow' }],
  ['reader', 'topp:secret', 'r', 'list', all('allow')],
  ['admin', 'topp:secret', 'w', 'data', all('allow')],
  ['writer', 'topp:secret', 'w', 'data', all('allow')],
  ['wsadmin', 'topp:secret', 'w', 'data', all('allow')],
  ['reader', 'topp:secret', 'w', 'data', all('deny')],
  ['groupAdmin', 'topp:secret', 'w', 'data', { HIDE: 'hide', MIXED: 'deny', CHALLENGE: 'deny' }],
  ['plain', 'topp:secret', 'w', 'data', { HIDE: 'hide', MIXED: 'deny', CHALLENGE: 'deny' }],
  ['anon', 'topp:secret', 'w', 'data', { HIDE: 'hide', MIXED: 'challenge', CHALLENGE: 'challenge' }],
  // A layer that inherits *.*.r=* and *.*.w=GROUP_ADMIN,ADMIN (plus the workspace admin rule).
  ['anon', 'topp:open', 'r', 'data', all('allow')],
  ['plain', 'topp:open', 'r', 'data', all('allow')],
  ['anon', 'topp:open', 'w', 'data', all('challenge')],
  ['plain', 'topp:open', 'w', 'data', all('deny')],
  ['reader', 'topp:open', 'w', 'data', all('deny')],
  ['groupAdmin', 'topp:open', 'w', 'data', all('allow')],
  ['wsadmin', 'topp:open', 'w', 'data', all('allow')],
  // The workspace admin rule stops at its workspace.
  ['wsadmin', 'nurc:dem', 'w', 'data', all('deny')],
  // ROLE_AUTHENTICATED: any logged-in caller, never an anonymous one.
  ['plain', 'sf:roads', 'r', 'data', all('allow')],
  ['anon', 'sf:roads', 'r', 'data', { HIDE: 'hide', MIXED: 'challenge', CHALLENGE: 'challenge' }]
]

t.test('decide() gives the expected decision for each role x catalog mode x access x usage', async (t) => {
  const { access } = await setup(t)
  for (const mode of ['HIDE', 'MIXED', 'CHALLENGE'] as CatalogMode[]) {
    await access.setCatalogMode(mode)
    for (const [who, layer, acc, usage, expected] of MATRIX) {
      const [ws, name] = layer.split(':')
      t.equal(access.decide(P[who], ws, name, acc, usage), expected[mode], `${mode} ${who} ${acc} ${layer} (${usage})`)
    }
  }
})

t.test('check() throws 404, 401 or 403 errors as the decision says, with the caller-supplied not-found error', async (t) => {
  const { access } = await setup(t)
  const kindOf = (fn: () => void) => {
    try { fn(); return 'allow' } catch (err) { return isMapwardenError(err) ? `${err.kind}: ${err.message}` : String(err) }
  }
  t.equal(kindOf(() => access.check(P.anon, 'topp', 'secret', 'r')), 'not_found: No such layer: topp:secret')
  t.equal(kindOf(() => access.check(P.reader, 'topp', 'secret', 'r')), 'allow')
  const custom = new Error('Unknown layer: topp:secret')
  t.equal(kindOf(() => access.check(P.anon, 'topp', 'secret', 'r', { notFound: () => custom })), String(custom))
  await access.setCatalogMode('MIXED')
  t.equal(kindOf(() => access.check(P.anon, 'topp', 'secret', 'r')), 'unauthorized: Authentication required to access layer topp:secret')
  t.equal(kindOf(() => access.check(P.reader, 'topp', 'secret', 'w')), 'forbidden: Access denied: no write permission on layer topp:secret')
  await access.setCatalogMode('CHALLENGE')
  t.equal(kindOf(() => access.check(P.anon, 'topp', 'secret', 'r', { usage: 'metadata' })), 'allow')
})

t.test('visible() keeps only the layers a caller may see listed', async (t) => {
  const { access } = await setup(t)
  const layers = [{ workspace: 'topp', layer: 'secret' }, { workspace: 'topp', layer: 'open' }, { workspace: 'sf', layer: 'roads' }]
  const names = (p: Principal) => access.visible(p, layers, (l) => l).map((l) => `${l.workspace}:${l.layer}`)
  t.same(names(P.anon), ['topp:open'])
  t.same(names(P.reader), ['topp:secret', 'topp:open', 'sf:roads'])
  await access.setCatalogMode('CHALLENGE')
  t.same(names(P.anon), ['topp:secret', 'topp:open', 'sf:roads'])
})

t.test('a layer rule replaces the workspace rule instead of adding to it', async (t) => {
  const { access } = await setup(t)
  await access.addRules(parseRuleEntries([['nurc.*.r', 'ROLE_A'], ['nurc.dem.r', 'ROLE_B']]))
  t.equal(access.decide(user('a', 'ROLE_A'), 'nurc', 'dem', 'r'), 'hide')
  t.equal(access.decide(user('b', 'ROLE_B'), 'nurc', 'dem', 'r'), 'allow')
  t.equal(access.decide(user('a', 'ROLE_A'), 'nurc', 'other', 'r'), 'allow')
  t.equal(access.decide(user('ab', 'ROLE_B', 'ROLE_X'), 'nurc', 'dem', 'r'), 'allow', 'the least restrictive role wins')
})

t.test('with the global write rule deleted nobody but administrators may write', async (t) => {
  const { access } = await setup(t)
  await access.removeRule('*.*.w')
  t.equal(access.decide(P.groupAdmin, 'nurc', 'dem', 'w'), 'deny')
  t.equal(access.decide(P.anon, 'nurc', 'dem', 'w'), 'challenge')
  t.equal(access.decide(P.admin, 'nurc', 'dem', 'w'), 'allow')
})

t.test('rules and catalog mode survive reopening the database', async (t) => {
  const dir = tempDir(t)
  let db = openDatabase(dir)
  let access = await createLayerAccess({ rules: createSqliteRuleStore(db) })
  await access.addRules(parseRuleEntries([['topp.secret.r', 'ROLE_READER']]))
  await access.setCatalogMode('MIXED')
  db.close()
  db = openDatabase(dir)
  t.teardown(() => db.close())
  access = await createLayerAccess({ rules: createSqliteRuleStore(db) })
  t.equal(access.catalogMode(), 'MIXED')
  t.equal(access.decide(P.anon, 'topp', 'secret', 'r'), 'challenge')
})
