// A PostGIS database with a few tables and their feature types in workspace `vx`, for the WFS tests.
import type { Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN, BASE } from '../../helper.js'
import { postgisStore } from '../../fixtures/postgis-store.js'

const REST = `${BASE}/rest`

export const TABLES = `
  CREATE TABLE places (gid serial PRIMARY KEY, name varchar(40) NOT NULL, pop integer, area double precision,
    founded date, capital boolean, geom geometry(Point, 4326));
  INSERT INTO places (name, pop, area, founded, capital, geom) VALUES
    ('Alpha', 100, 1.5, '1900-01-01', true, ST_SetSRID(ST_MakePoint(-10, -5), 4326)),
    ('Beta', 200, 2.5, '1950-06-30', false, ST_SetSRID(ST_MakePoint(20, 15), 4326)),
    ('Gamma', NULL, NULL, NULL, NULL, ST_SetSRID(ST_MakePoint(5, 40), 4326)),
    ('Del "ta" & <co>', 300, 0.25, '2000-02-29', false, ST_SetSRID(ST_MakePoint(0.5, 0.25), 4326));
  CREATE TABLE roads (id bigint PRIMARY KEY, kind text, geom geometry(LineString, 3857));
  INSERT INTO roads VALUES (1, 'main', ST_SetSRID(ST_MakeLine(ST_MakePoint(0, 0), ST_MakePoint(1113194.9079327357, 1118889.9748579594)), 3857)),
    (2, 'side', ST_SetSRID(ST_MakeLine(ST_MakePoint(-1113194.9079327357, 0), ST_MakePoint(-2226389.8158654715, 0)), 3857));
  CREATE TABLE parcels (id integer PRIMARY KEY, value numeric, geom geometry(MultiPolygon, 4326));
  INSERT INTO parcels VALUES (1, 12.5, ST_Multi(ST_MakeEnvelope(1, 2, 3, 4, 4326)));
`

export async function wfsSetup (t: Test, types = ['places', 'roads', 'parcels'], opts: Parameters<typeof build>[1] = {}): Promise<{ app: FastifyInstance, url: string }> {
  const app = await build(t, opts)
  const url = await postgisStore(t, app, TABLES, { maxConnections: 3 })
  for (const name of types) {
    const r = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/datastores/nyc/featuretypes`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: `<featureType><name>${name}</name></featureType>` })
    if (r.statusCode !== 201) throw new Error(`feature type ${name}: ${r.statusCode} ${r.body}`)
  }
  return { app, url }
}

export function wfsUrl (params: Record<string, string | number>, path = '/wfs'): string {
  return `${BASE}${path}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()}`
}

export const wfsGet = (app: FastifyInstance, params: Record<string, string | number>, headers: Record<string, string> = {}, path = '/wfs'): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'GET', url: wfsUrl(params, path), headers })

export const wfsPost = (app: FastifyInstance, xml: string, path = '/wfs', headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'POST', url: `${BASE}${path}`, headers: { 'content-type': 'text/xml', ...headers }, payload: xml })
