// Seeding a vector layer (issue 34) against MapProxy 1.15 + MapServer 8 seeding the same, in one
// run: the Natural Earth 1:10m countries in PostGIS (test/fixtures/vector/countries.ts, as
// vectorwms.ts loads them; a throwaway database of MW_BENCH_PG) filled, outlined and labelled,
// EPSG:900913 levels 0..MW_BENCH_VECTORSEED_ZOOM (default 8) over the world, PNG, 4x4 metatiles.
// mapwarden: the GeoWebCache seed REST call (threadCount 2, two render threads), tiles counted as
// they are written. MapProxy: mapproxy-seed at concurrency 2 over the mapserv CGI on the equivalent
// mapfile (mapproxy.ts, its `mapserver` source; countryMapfile with labels). Target: mapwarden's
// tiles/s >= 2x MapProxy's. The whole world at z8 is 87,381 tiles: hours on a loaded 2-core
// machine for MapProxy, so a run may lower the zoom (the figure names it).
import os from 'node:os'
import { AUTH, startMapwarden, type Figure } from './harness.js'
import { pointsDatabase } from './points-db.js'
import { publishBenchLayers } from './vectorwms.js'
import { mapProxySeedMap } from './mapproxy.js'
import { countryMapfile, countryTables } from '../test/fixtures/vector/countries.js'
import type { BBox } from '../services/tilecache/grid-sets.js'

const ZOOM = Number(process.env.MW_BENCH_VECTORSEED_ZOOM ?? 8)
const WORLD: BBox = [-180, -85.0511287798, 180, 85.0511287798]
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d

export async function run (): Promise<Figure[]> {
  const figures: Figure[] = []
  const load1 = os.loadavg()[0]
  const db = await pointsDatabase(0)
  try {
    const { countries } = await countryTables(db.url.href, '10m')
    const mw = await startMapwarden({ workerThreads: 2 })
    let ours: { tiles: number, secs: number } | undefined
    try {
      await publishBenchLayers(mw, db, ['countries'])
      let tiles = 0
      mw.app.tileCache.store.onTileWritten((e) => { if (e.gridSet === 'EPSG:900913') tiles++ })
      const t0 = performance.now()
      const res = await mw.app.inject({
        method: 'POST',
        url: '/geoserver/tilecache/rest/seed/vb:countries.json',
        headers: { authorization: AUTH, 'content-type': 'application/json' },
        payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop: ZOOM, type: 'seed', format: 'image/png', threadCount: 2 } })
      })
      if (res.statusCode !== 200) throw new Error(`seed: ${res.statusCode} ${res.body}`)
      await mw.app.tileCache.breeder.idle()
      const secs = (performance.now() - t0) / 1000
      const failed = mw.app.tileCache.breeder.list().length
      if (failed) throw new Error(`seed: ${failed} task(s) left`)
      ours = { tiles, secs }
      figures.push({ name: `vector seed EPSG:900913 z0-${ZOOM}, ${countries} countries with outlines and labels, mapwarden`, value: round(tiles / secs), unit: 'tiles/s', note: `${tiles} tiles in ${round(secs, 1)} s` })
    } finally { await mw.close() }
    try {
      const mp = await mapProxySeedMap((dir) => countryMapfile(db.url.href, dir, { labels: true }).replace(/"wms_srs" "EPSG:4326 EPSG:3857"/g, '"wms_srs" "EPSG:4326 EPSG:3857 EPSG:900913"'), 'countries', WORLD, ZOOM)
      if (!mp) figures.push({ name: 'MapProxy + MapServer', value: 0, unit: '', note: 'python3-mapproxy or cgi-mapserver is not installed (scripts/install-bench-tools.sh)' })
      else {
        figures.push(
          { name: `vector seed EPSG:900913 z0-${ZOOM}, MapProxy 1.15 + MapServer 8 (concurrency 2)`, value: round(mp.tiles / mp.secs), unit: 'tiles/s', note: `${mp.tiles} tiles of the ranges (${mp.written} stored) in ${round(mp.secs, 1)} s` },
          { name: 'vector seed mapwarden / MapProxy + MapServer', value: round((ours.tiles / ours.secs) / (mp.tiles / mp.secs)), unit: 'ratio', note: `target >= 2; ${ours.tiles} tiles for mapwarden, ${mp.tiles} for MapProxy` })
      }
    } catch (err) {
      figures.push({ name: 'MapProxy + MapServer vector seed', value: 0, unit: '', note: `failed: ${(err as Error).message.slice(0, 300)}` })
    }
  } finally { await db.drop() }
  figures.push({ name: 'load average (1 min) at start / end', value: round(load1), unit: '', note: `end ${round(os.loadavg()[0])}, ${os.cpus().length} cores` })
  return figures
}
