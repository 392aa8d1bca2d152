// One vector source per PostGIS store: reused while the store's parameters stay, replaced (the old
// pool closed) when they change, closed when the store or its workspace goes; the options a pool is
// opened with come from the store's parameters with GeoServer's defaults, the password opened.
import t from 'tap'
import { createSourceRegistry, postgisOptions } from '../../../services/vector/sources.js'
import type { DataStoreRow } from '../../../services/datastores/store.js'
import type { VectorSource } from '../../../services/vector/source.js'
import type { PostgisSourceOptions } from '../../../services/vector/postgis-source.js'

const secrets = { sealSecret: (p: string) => `crypt2:${p}`, openSecret: (tok: string) => tok.startsWith('crypt2:') ? tok.slice(7) : undefined }
const row = (ws: string, name: string, extra: Record<string, string> = {}): DataStoreRow => ({
  workspace: ws, name, kind: 'data', type: 'PostGIS', enabled: true, createdAt: '2026-01-01T00:00:00.000Z',
  config: { connectionParameters: { dbtype: 'postgis', host: 'db', database: 'gis', user: 'u', passwd: 'crypt2:pw', ...extra } }
})

t.test('options: GeoServer\'s defaults, the store\'s values, the password opened', async (t) => {
  const d = postgisOptions(row('a', 's'), secrets)
  t.same(d, { host: 'db', port: 5432, database: 'gis', schema: 'public', user: 'u', password: 'pw', timeout: 20, ssl: 'off', maxConnections: 10, minConnections: 1, fetchSize: 1000, looseBbox: false, exposePrimaryKeys: false })
  const o = postgisOptions(row('a', 's', { 'max connections': '3', 'min connections': '5', 'fetch size': '0', 'Connection timeout': '4', schema: 'x y', 'Loose bbox': 'true', 'Expose primary keys': 'true' }), secrets)
  t.same([o.maxConnections, o.minConnections, o.fetchSize, o.timeout, o.schema, o.looseBbox, o.exposePrimaryKeys], [3, 3, 0, 4, 'x y', true, true], 'min is capped at max')
})

t.test('a source per store: reused, replaced on a change, closed when forgotten', async (t) => {
  const opened: Array<{ o: PostgisSourceOptions, closed: boolean }> = []
  const open = (o: PostgisSourceOptions): VectorSource => {
    const rec = { o, closed: false }
    opened.push(rec)
    return { close: async () => { rec.closed = true } } as unknown as VectorSource
  }
  const reg = createSourceRegistry(secrets, open)
  const a = reg.forStore(row('w1', 'a'))
  t.equal(reg.forStore(row('w1', 'a')), a, 'same parameters: same source')
  const b = reg.forStore(row('w1', 'a', { 'Loose bbox': 'true' }))
  t.not(b, a)
  t.equal(opened[0].closed, true, 'the old pool is closed')
  reg.forStore(row('w2', 'a'))
  await reg.forget('w1', 'a')
  t.same(opened.map((x) => x.closed), [true, true, false])
  await reg.forgetWorkspace('w2')
  t.same(opened.map((x) => x.closed), [true, true, true])
  reg.forStore(row('w3', 'c'))
  await reg.closeAll()
  t.equal(opened[3].closed, true)
})
