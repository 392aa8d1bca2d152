import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { demoZip } from '../../../scripts/demo.js'
import { renderMosaic, closeRenderCache } from '../../../services/render/raster/render-mosaic.js'

t.teardown(closeRenderCache)

t.test('the demo mosaic loads through the REST API and renders with its nodata island transparent', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'demo' })
  const zip = await demoZip()
  t.same(await demoZip(), zip, 'deterministic')
  const r = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/demo/coveragestores/watertemp/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal(r.statusCode, 200)
  const g = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces/demo/coveragestores/watertemp/coverages/watertemp/index/granules.json`, headers: ADMIN })
  t.same(JSON.parse(g.body).features.map((f: any) => [f.properties.ingestion, f.properties.elevation]), [
    ['2024-06-01T00:00:00.000+0000', 0], ['2024-06-01T00:00:00.000+0000', 100], ['2024-06-02T00:00:00.000+0000', 0], ['2024-06-02T00:00:00.000+0000', 100]
  ])
  const job = await app.mosaics.prepareRender({ layer: 'demo:watertemp', crs: 'EPSG:4326', bbox: [-10, 35, 30, 60], width: 40, height: 25 })
  t.match(job.granules.map((x) => x.path), [/watertemp_20240602T000000_0\.tif$/])
  const img = await renderMosaic(job)
  t.equal(img.rgba[((60 - 48) * 40 + 22) * 4 + 3], 0, 'lon 12, lat 48: nodata')
  t.equal(img.rgba[3], 255)
})

t.test('npm run demo finds the server by the same MAPWARDEN_PORT and MAPWARDEN_BASE_PATH as the server', async (t) => {
  const { makeEnv, start, kill, PASSWORD } = await import('../../crash/harness.js')
  const { execFile } = await import('node:child_process')
  const net = await import('node:net')
  const srv = net.createServer()
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  const port = String((srv.address() as import('node:net').AddressInfo).port)
  await new Promise<void>((resolve) => srv.close(() => resolve()))
  const env = makeEnv('mw-demo')
  t.teardown(env.cleanup)
  const settings = { MAPWARDEN_PORT: port, MAPWARDEN_BASE_PATH: '/maps' }
  const server = await start(env, undefined, settings)
  t.teardown(() => kill(server))
  const demo = new URL('../../../scripts/demo.js', import.meta.url)
  const out = await new Promise<{ code: number | null, stdout: string, stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [demo.pathname], { env: { PATH: process.env.PATH, ...settings, MAPWARDEN_PASSWORD: PASSWORD } }, (err, stdout, stderr) => resolve({ code: err ? (err as any).code ?? 1 : 0, stdout, stderr }))
    child.stdin?.end()
  })
  t.equal(out.code, 0, out.stderr)
  t.match(out.stdout, /demo: layer demo:watertemp is ready \(4 granules/)
  t.match(out.stdout, new RegExp(`http://127\\.0\\.0\\.1:${port}/maps/rest/workspaces/demo/`))
})
