// A real WFS-T client against a listening server: GDAL's WFS driver in update mode (ogr2ogr -update
// -append onto a WFS layer) inserts features through Transaction, as it does against GeoServer.
import t from 'tap'
import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { ADMIN, ADMIN_PASSWORD, BASE, tempDir } from '../../helper.js'
import { wfsGet, wfsSetup } from './helpers.js'

const run = promisify(execFile)
const missing = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status !== 0

t.test('ogr2ogr -update -append onto a WFS layer inserts the features (GDAL\'s WFS-T, WFS 1.1.0)', async (t) => {
  if (missing('ogr2ogr', ['--version'])) return t.fail('ogr2ogr is missing: run scripts/install-gdal.sh')
  const { app } = await wfsSetup(t, ['places'])
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve))
  const { port } = app.server.address() as { port: number }
  const dir = tempDir(t, 'gdal-wfst')
  const src = path.join(dir, 'new.geojson')
  fs.writeFileSync(src, JSON.stringify({ type: 'FeatureCollection', features: [
    { type: 'Feature', properties: { name: 'From GDAL', pop: 7 }, geometry: { type: 'Point', coordinates: [12.5, 41.9] } },
    { type: 'Feature', properties: { name: 'From GDAL too', pop: 8 }, geometry: { type: 'Point', coordinates: [-3.7, 40.4] } }
  ] }))
  const env = { ...process.env, GDAL_HTTP_TIMEOUT: '60', CPL_DEBUG: 'OFF', GDAL_HTTP_AUTH: 'BASIC', GDAL_HTTP_USERPWD: `admin:${ADMIN_PASSWORD}` }
  const out = await run('ogr2ogr', ['-update', '-append', `WFS:http://127.0.0.1:${port}${BASE}/wfs?VERSION=1.1.0`, src, '-nln', 'vx:places'], { timeout: 120_000, env })
  t.notMatch(out.stderr, /ERROR/, out.stderr)
  const got = JSON.parse((await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'vx:places', outputFormat: 'application/json', cql_filter: "name LIKE 'From GDAL%'", sortBy: 'name' }, ADMIN)).body)
  t.same(got.features.map((f: { properties: { name: string, pop: number }, geometry: { coordinates: number[] } }) => [f.properties.name, f.properties.pop, f.geometry.coordinates]),
    [['From GDAL', 7, [12.5, 41.9]], ['From GDAL too', 8, [-3.7, 40.4]]])
})
