// Vector data (issue 33), every figure a ratio against a baseline measured in the same run:
// - publishing a PostGIS table of MW_BENCH_VECTOR_ROWS points (default 1,000,000; generate_series in
//   a throwaway database of MW_BENCH_PG): POST featuretypes until the feature type exists, with exact
//   bounds (against PostGIS' own ST_Extent over the table) and with `Estimated extends` (against
//   ST_EstimatedExtent);
// - uploading the same rows as a shapefile (written by ogr2ogr from the table; PUT file.shp, ZIP
//   extracted, spatial index built, type published) against ogr2ogr converting the same .shp to a
//   GeoPackage: ogr2ogr's time / ours (issue 33: at least 0.5), with this process's peak RSS over its
//   RSS before the upload;
// - a read of 1% of the extent through the index against the same read scanning the file.
// GDAL: scripts/install-gdal.sh.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { execFileSync } from 'node:child_process'
import yazl from 'yazl'
import { AUTH, startMapwarden, type Figure } from './harness.js'
import { haveOgr, pointsDatabase, sql } from './points-db.js'
import { createShapefileSource } from '../services/vector/shapefile-source.js'
import { shapefileIndexDir } from '../services/vector/sources.js'

const ROWS = Number(process.env.MW_BENCH_VECTOR_ROWS ?? 1_000_000)

const seconds = (t0: number) => (performance.now() - t0) / 1000
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d

/** Runs fn while sampling this process's RSS; its time and the peak RSS seen. */
async function sampled<T> (fn: () => Promise<T>): Promise<{ value: T, s: number, peak: number }> {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 20)
  const t0 = performance.now()
  try {
    const value = await fn()
    return { value, s: seconds(t0), peak: Math.max(peak, process.memoryUsage().rss) }
  } finally { clearInterval(timer) }
}

async function zipFolder (dir: string, out: string): Promise<void> {
  const z = new yazl.ZipFile()
  for (const name of fs.readdirSync(dir)) z.addFile(path.join(dir, name), name)
  z.end()
  await new Promise<void>((resolve, reject) => {
    z.outputStream.pipe(fs.createWriteStream(out)).on('finish', resolve).on('error', reject)
  })
}

export async function run (): Promise<Figure[]> {
  if (!haveOgr()) return [{ name: 'vector', value: 0, unit: 'skipped', note: 'ogr2ogr is missing: run scripts/install-gdal.sh' }]
  const db = await pointsDatabase(ROWS)
  const { name, url: dbUrl } = db
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-vector-'))
  const figures: Figure[] = []
  try {
    const dataDir = path.join(work, 'data')
    const mw = await startMapwarden({ dataDir })
    try {
      const inject = async (method: 'POST' | 'PUT', url: string, payload: object) => {
        const r = await mw.app.inject({ method, url: `/geoserver/rest${url}`, headers: { authorization: AUTH, 'content-type': 'application/json' }, payload })
        if (r.statusCode !== 201) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`)
      }
      await inject('POST', '/workspaces', { workspace: { name: 'vb' } })
      const store = (storeName: string, estimated: boolean) => inject('POST', '/workspaces/vb/datastores', { dataStore: { name: storeName, connectionParameters: { entry: [
        { '@key': 'host', $: dbUrl.hostname }, { '@key': 'port', $: dbUrl.port || '5432' }, { '@key': 'database', $: name },
        { '@key': 'user', $: decodeURIComponent(dbUrl.username) || 'postgres' }, { '@key': 'dbtype', $: 'postgis' },
        { '@key': 'Estimated extends', $: String(estimated) }
      ] } } })
      await store('exact', false)
      await store('estimated', true)

      // PostGIS: time to the feature type, exact bounds, against ST_Extent over the table.
      let t0 = performance.now()
      await sql(dbUrl.href, 'SELECT ST_Extent(geom) FROM pts')
      const extent = seconds(t0)
      t0 = performance.now()
      await inject('POST', '/workspaces/vb/datastores/exact/featuretypes', { featureType: { name: 'pg_exact', nativeName: 'pts' } })
      const published = seconds(t0)
      figures.push({ name: `PostGIS publish ${ROWS} rows, exact bounds`, value: round(published, 3), unit: 's', note: `ST_Extent alone ${round(extent, 3)} s = ${round(published / extent)}x of it` })
      t0 = performance.now()
      await sql(dbUrl.href, "SELECT ST_EstimatedExtent('public', 'pts', 'geom')")
      const estimate = seconds(t0)
      t0 = performance.now()
      await inject('POST', '/workspaces/vb/datastores/estimated/featuretypes', { featureType: { name: 'pg_estimated', nativeName: 'pts' } })
      const publishedEst = seconds(t0)
      figures.push({ name: `PostGIS publish ${ROWS} rows, estimated bounds`, value: round(publishedEst, 3), unit: 's', note: `ST_EstimatedExtent alone ${round(estimate, 3)} s` })

      // The shapefile: written from the table by ogr2ogr (not timed), zipped.
      const shpDir = path.join(work, 'shp')
      fs.mkdirSync(shpDir)
      const pgConn = `PG:host=${dbUrl.hostname} port=${dbUrl.port || '5432'} dbname=${name} user=${decodeURIComponent(dbUrl.username) || 'postgres'}`
      execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', path.join(shpDir, 'pts.shp'), pgConn, 'pts', '-lco', 'ENCODING=UTF-8'])
      const zip = path.join(work, 'pts.zip')
      await zipFolder(shpDir, zip)

      // ogr2ogr converting the same .shp to a GeoPackage (the baseline of the upload).
      const gpkg = path.join(work, 'pts.gpkg')
      t0 = performance.now()
      execFileSync('ogr2ogr', ['-f', 'GPKG', gpkg, path.join(shpDir, 'pts.shp')])
      const ogr = seconds(t0)

      // Ours: PUT file.shp over HTTP on loopback, the ZIP streamed from disk.
      global.gc?.()
      const before = process.memoryUsage().rss
      const up = await sampled(async () => {
        const res = await fetch(`${mw.url}/geoserver/rest/workspaces/vb/datastores/shp/file.shp?configure=all`, {
          method: 'PUT',
          headers: { authorization: AUTH, 'content-type': 'application/zip', 'content-length': String(fs.statSync(zip).size) },
          body: Readable.toWeb(fs.createReadStream(zip)) as ReadableStream,
          duplex: 'half'
        } as RequestInit)
        if (res.status !== 201) throw new Error(`PUT file.shp: ${res.status} ${await res.text()}`)
      })
      figures.push({ name: `shapefile upload ${ROWS} features / ogr2ogr to GeoPackage`, value: round(ogr / up.s), unit: 'x', note: `ours ${round(up.s)} s (ZIP, extract, R-tree index, publish), ogr2ogr ${round(ogr)} s; target >= 0.5` })
      figures.push({ name: 'shapefile upload peak RSS over before', value: round((up.peak - before) / 2 ** 20, 1), unit: 'MB', note: `peak ${round(up.peak / 2 ** 20, 1)} MB, ZIP ${round(fs.statSync(zip).size / 2 ** 20, 1)} MB` })

      // A read of 1% of the extent: through the index against a scan of the same file.
      const uploaded = path.join(dataDir, 'data', 'vb', 'shp', 'pts.shp')
      const box: [number, number, number, number] = [0, 0, 36, 17]
      const count = async (indexDir?: string) => {
        const s = createShapefileSource({ path: uploaded, charset: 'UTF-8', fetchSize: 1000, ...(indexDir ? { indexDir } : {}) })
        let n = 0
        const t = performance.now()
        for await (const _ of s.readFeatures({ type: 'pts', bbox: box })) n++
        return { n, s: seconds(t) }
      }
      const indexed = await sampled(() => count(shapefileIndexDir(dataDir)))
      const scanned = await count()
      if (indexed.value.n !== scanned.n) throw new Error(`indexed read gave ${indexed.value.n} features, the scan ${scanned.n}`)
      figures.push({ name: `bbox read of 1% (${scanned.n} features): scan / indexed`, value: round(scanned.s / indexed.value.s), unit: 'x', note: `indexed ${round(indexed.value.s, 3)} s, scan ${round(scanned.s, 3)} s, peak RSS ${round(indexed.peak / 2 ** 20, 1)} MB` })
    } finally { await mw.close() }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
    await db.drop()
  }
  return figures
}
