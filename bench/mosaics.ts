// Mosaic figures (not tests): milliseconds per 1024x1024 render of the shared benchmark mosaic
// (../shared/bench/make-mosaic.sh, BENCH_DATA or /tmp/bench-data; skipped when absent), with and
// without internal overviews (made with gdaladdo on a copy when GDAL is installed), and granule
// index query time with 10,000 granules (R*Tree bbox query vs a full scan, in the same run).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { openDatabase } from '../services/storage/sqlite/database.js'
import { createWorkspaceService } from '../services/catalog/workspaces.js'
import { createSqliteWorkspaceStore } from '../services/catalog/sqlite-store.js'
import { createMosaicService } from '../services/mosaics/mosaic-service.js'
import { createSqliteMosaicStore } from '../services/mosaics/sqlite-store.js'
import { parseMosaicDefinition } from '../services/mosaics/indexer.js'
import type { NewGranule } from '../services/mosaics/store.js'
import { renderMosaic, closeRenderCache } from '../services/render/raster/render-mosaic.js'
import { latToY, lonToX } from '../services/render/crs.js'
import { BENCH_DATA, NO_BENCH_DATA } from './data.js'

type Figure = { name: string, value: number, unit: string, note?: string }

async function timeIt (n: number, fn: () => Promise<unknown>): Promise<number> {
  await fn() // warm-up: file handles, JIT
  const t0 = performance.now()
  for (let i = 0; i < n; i++) await fn()
  return (performance.now() - t0) / n
}

function services (dataDir: string, roots: string[]) {
  const db = openDatabase(dataDir)
  const workspaces = createWorkspaceService({ store: createSqliteWorkspaceStore(db), namespaceBase: 'http://mapwarden.org/ns' })
  const store = createSqliteMosaicStore(db)
  const mosaics = createMosaicService({ store, dataDir, harvestRoots: roots, workspaces, zipLimits: { maxEntries: 100, maxBytes: 2 ** 30 } })
  return { db, store, workspaces, mosaics }
}

async function harvestedLayer (granuleDir: string, dataDir: string) {
  const { db, store, workspaces, mosaics } = services(dataDir, [granuleDir])
  await workspaces.create({ name: 'bench' })
  const settings = await parseMosaicDefinition(new Map())
  const record = { workspace: 'bench', store: 'rgb', dir: path.join(dataDir, 'data', 'bench', 'rgb'), typeName: 'rgb', settings }
  await store.commitUpload('bench', 'rgb', { record, granules: [], storeConfig: {} })
  await mosaics.harvest('bench', 'rgb', granuleDir)
  await mosaics.addCoverage('bench', 'rgb', { name: 'rgb' })
  return { db, mosaics }
}

async function renderFigures (granuleDir: string, label: string, note: string): Promise<Figure[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-'))
  try {
    const { db, mosaics } = await harvestedLayer(granuleDir, dataDir)
    const size = 1024
    const cases: Array<[string, 'EPSG:4326' | 'EPSG:900913', [number, number, number, number], number]> = [
      ['whole mosaic, EPSG:4326', 'EPSG:4326', [0, 40, 20, 60], 2],
      ['1/4 of a granule, EPSG:4326', 'EPSG:4326', [0, 55, 5, 60], 5],
      ['whole mosaic, EPSG:900913', 'EPSG:900913', [lonToX(0), latToY(40), lonToX(20), latToY(60)], 2],
      ['native resolution window, EPSG:900913', 'EPSG:900913', [lonToX(2), latToY(52), lonToX(4.5), latToY(53.5)], 5]
    ]
    const out: Figure[] = []
    for (const [name, crs, bbox, n] of cases) {
      const ms = await timeIt(n, async () => renderMosaic(await mosaics.prepareRender({ layer: 'bench:rgb', crs, bbox, width: size, height: size })))
      out.push({ name: `mosaics: 1024x1024 render, ${name}, ${label}`, value: Math.round(ms), unit: 'ms', note })
    }
    await closeRenderCache()
    db.close()
    return out
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

async function indexFigures (): Promise<Figure[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-'))
  try {
    const { db, store, workspaces, mosaics } = services(dataDir, [])
    await workspaces.create({ name: 'bench' })
    const settings = await parseMosaicDefinition(new Map([['indexer.properties', 'Schema=*the_geom:Polygon,location:String,ingestion:java.util.Date,elevation:Integer\nTimeAttribute=ingestion\nElevationAttribute=elevation\n']]))
    // 100 x 100 granules of 1 x 1 degree, 10 times and 2 elevations spread over them.
    const granules: NewGranule[] = []
    for (let i = 0; i < 10_000; i++) {
      const x = (i % 100) - 50
      const y = Math.floor(i / 100) - 50
      const bbox: [number, number, number, number] = [x, y, x + 1, y + 1]
      granules.push({
        location: `g_${i}.tif`, path: path.join(dataDir, `g_${i}.tif`), crs: 'EPSG:4326', bbox, nativeBbox: bbox,
        width: 256, height: 256, bands: 1, dataType: 'Byte', nodata: null, ranges: [{ min: 0, max: 255 }],
        attrs: { location: `g_${i}.tif`, ingestion: new Date(Date.UTC(2020, 0, 1 + (i % 10))).toISOString(), elevation: (i % 2) * 100 }
      })
    }
    // The coverage configured from the index: time and elevation on, extent [-50, -50, 50, 50].
    const record = { workspace: 'bench', store: 'grid', dir: dataDir, typeName: 'grid', crs: 'EPSG:4326', settings }
    await store.commitUpload('bench', 'grid', { record, granules, storeConfig: {}, configure: { name: 'grid', nativeName: 'grid' } })
    const n = 200
    const bboxQuery = await timeIt(n, async () => store.query('bench', 'grid', { bbox: [10.5, 10.5, 13.5, 13.5] }))
    const scan = await timeIt(20, async () => db.prepare(`SELECT * FROM mosaic_granules WHERE workspace = 'bench' AND store = 'grid'
      AND maxx >= 10.5 AND minx <= 13.5 AND maxy >= 10.5 AND miny <= 13.5 AND path NOT LIKE '%never%'`).all())
    const render = await timeIt(n, async () => mosaics.prepareRender({ layer: 'bench:grid', crs: 'EPSG:4326', bbox: [10.5, 10.5, 13.5, 13.5], width: 1024, height: 1024 }))
    const cql = await timeIt(n, async () => mosaics.granules('bench', 'grid', 'grid', { filter: "BBOX(the_geom, 10.5, 10.5, 13.5, 13.5) AND elevation = 100 AND location LIKE 'g_%'", limit: '100' }))
    db.close()
    return [
      { name: 'mosaics: index bbox query, 10,000 granules (R*Tree)', value: +bboxQuery.toFixed(3), unit: 'ms', note: '16 granules returned' },
      { name: 'mosaics: same bbox query as a full scan', value: +scan.toFixed(3), unit: 'ms', note: `R*Tree speed-up x${(scan / bboxQuery).toFixed(1)}` },
      { name: 'mosaics: prepareRender (default time + elevation), 10,000 granules', value: +render.toFixed(3), unit: 'ms' },
      { name: 'mosaics: ECQL granule query (BBOX AND = AND LIKE), 10,000 granules', value: +cql.toFixed(3), unit: 'ms' }
    ]
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

function withOverviews (src: string): string | undefined {
  try { execFileSync('gdaladdo', ['--version'], { stdio: 'ignore' }) } catch { return undefined }
  const dir = path.join(os.tmpdir(), 'mw-bench-overviews')
  const files = fs.readdirSync(src).filter((f) => f.endsWith('.tif'))
  if (!files.every((f) => fs.existsSync(path.join(dir, f)))) {
    fs.mkdirSync(dir, { recursive: true })
    for (const f of files) {
      fs.copyFileSync(path.join(src, f), path.join(dir, `.${f}`))
      execFileSync('gdaladdo', ['-q', '-r', 'average', '--config', 'COMPRESS_OVERVIEW', 'DEFLATE', path.join(dir, `.${f}`), '2', '4', '8', '16'], { stdio: 'ignore' })
      fs.renameSync(path.join(dir, `.${f}`), path.join(dir, f))
    }
  }
  return dir
}

export async function run (): Promise<Figure[]> {
  const figures: Figure[] = await indexFigures()
  const granules = path.join(BENCH_DATA, 'granules')
  if (!fs.existsSync(path.join(granules, 'rgb_0_0.tif'))) {
    figures.push({ name: 'mosaics: 1024x1024 render', value: NaN, unit: 'ms', note: NO_BENCH_DATA })
    return figures
  }
  figures.push(...await renderFigures(granules, 'no overviews', '4 RGB granules 4096x4096, tiled 256, DEFLATE'))
  const ovr = withOverviews(granules)
  if (ovr) figures.push(...await renderFigures(ovr, 'internal overviews 2-16', 'same granules after gdaladdo'))
  return figures
}

if (process.argv[1] && import.meta.url === new URL(`file://${path.resolve(process.argv[1])}`).href) {
  run().then((f) => { for (const x of f) console.log(`${x.name}: ${x.value} ${x.unit}${x.note ? ` (${x.note})` : ''}`) }, (err) => { console.error(err); process.exit(1) })
}
