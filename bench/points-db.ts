// The vector benches' PostGIS table (vector.ts, wfs.ts): a database of its own holding `pts`, rows
// of points spread over the world, the same ones every run (no random()), with a key, a GiST index
// and statistics; and the SQL and GDAL helpers both use.
import crypto from 'node:crypto'
import { spawnSync } from 'node:child_process'
import pg from 'pg'
import { haveBenchTool } from './harness.js'

export const ADMIN_URL = process.env.MW_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/** One statement (or several) on a connection of its own. */
export async function sql<T extends pg.QueryResultRow = pg.QueryResultRow> (url: string, text: string): Promise<pg.QueryResult<T>> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try { return await c.query<T>(text) } finally { await c.end() }
}

/** GDAL's ogr2ogr, installed by scripts/install-gdal.sh where the bench may. */
export const haveOgr = () => haveBenchTool(() => spawnSync('ogr2ogr', ['--version'], { stdio: 'ignore' }).status === 0)

export interface PointsDatabase { name: string, url: URL, drop (): Promise<void> }

/** A new database with the `pts` table of `rows` points. */
export async function pointsDatabase (rows: number): Promise<PointsDatabase> {
  const name = `mw_bench_${crypto.randomBytes(5).toString('hex')}`
  await sql(ADMIN_URL, `CREATE DATABASE ${name}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  const drop = async () => { await sql(ADMIN_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
  try {
    await sql(url.href, `CREATE EXTENSION postgis;
      CREATE TABLE pts AS SELECT i AS id, 'feature ' || i AS label, (i % 1000) AS cls,
        ST_SetSRID(ST_MakePoint(((i::bigint * 7919) % 3600000) / 10000.0 - 180, ((i::bigint * 104729) % 1700000) / 10000.0 - 85), 4326)::geometry(Point, 4326) AS geom
      FROM generate_series(1, ${Math.trunc(rows)}) i;
      ALTER TABLE pts ADD PRIMARY KEY (id);
      CREATE INDEX pts_geom ON pts USING gist (geom);
      ANALYZE pts;`)
  } catch (err) { await drop(); throw err }
  return { name, url, drop }
}
