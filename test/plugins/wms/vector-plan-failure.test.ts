// A map of two PostGIS layers whose second plan fails (its table dropped after it was published)
// while the first has opened a feed (more features than one batch, vector-plan.ts BATCH_FEATURES):
// the map is refused and the first layer's read is ended at once, its PostgreSQL connection given
// back (no session left idle in its transaction), not after the feed's 60 s idle timer.
import t from 'tap'
import pg from 'pg'
import { build, ADMIN, BASE } from '../../helper.js'
import { postgisStore } from '../../fixtures/postgis-store.js'
import { wmsUrl } from './helpers.js'
import { BATCH_FEATURES } from '../../../services/render/vector/vector-plan.js'

const FT = `${BASE}/rest/workspaces/vx/datastores/db/featuretypes`

t.test('a failed layer plan ends the feeds of the map\'s other layers', async (t) => {
  const app = await build(t)
  const url = await postgisStore(t, app, `
    CREATE TABLE many (id integer PRIMARY KEY, geom geometry(Point, 4326));
    INSERT INTO many SELECT i, ST_SetSRID(ST_MakePoint((i % 100) * 0.3, (i / 100) * 0.25), 4326) FROM generate_series(1, ${BATCH_FEATURES + 500}) i;
    CREATE TABLE gone (id integer PRIMARY KEY, geom geometry(Point, 4326));
    INSERT INTO gone VALUES (1, ST_SetSRID(ST_MakePoint(1, 1), 4326));`, { store: 'db', maxConnections: 4, fetchSize: 1000 })
  for (const name of ['many', 'gone']) {
    const r = await app.inject({ method: 'POST', url: FT, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { featureType: { name } } })
    if (r.statusCode !== 201) throw new Error(`feature type ${name}: ${r.statusCode} ${r.body}`)
  }
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  t.teardown(() => c.end())
  await c.query('DROP TABLE gone')
  const res = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 200, height: 200, format: 'image/png', styles: '', layers: 'vx:many,vx:gone' }), headers: ADMIN })
  t.not(res.headers['content-type'], 'image/png', `the map is refused: ${res.statusCode} ${res.body.slice(0, 200)}`)
  // The feed's read is ended as the map fails: its cursor's transaction closes within moments.
  const open = async () => Number((await c.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()")).rows[0].n)
  let n = await open()
  for (let i = 0; i < 50 && n > 0; i++) { await new Promise((resolve) => setTimeout(resolve, 100)); n = await open() }
  t.equal(n, 0, 'no connection is left in the feed\'s transaction')
  // The layer that planned still draws.
  const ok = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 200, height: 200, format: 'image/png', styles: '', layers: 'vx:many' }), headers: ADMIN })
  t.equal(ok.headers['content-type'], 'image/png', 'vx:many alone draws')
})
