// Real WFS clients against a listening server: GDAL's WFS driver (gdal-bin, scripts/install-gdal.sh)
// lists the feature types, reads the schema of one and copies every feature and attribute of it
// with ogr2ogr, in WFS 2.0.0 (its default, with paging) and 1.1.0.
import t from 'tap'
import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { BASE, tempDir } from '../../helper.js'
import { wfsSetup } from './helpers.js'

const run = promisify(execFile)
const missing = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status !== 0
const GDAL_ENV = { ...process.env, GDAL_HTTP_TIMEOUT: '60', CPL_DEBUG: 'OFF', GDAL_HTTP_UNSAFESSL: 'NO' }

t.test('GDAL\'s WFS driver lists the types and copies a layer whole (ogrinfo, ogr2ogr), WFS 2.0.0 and 1.1.0', async (t) => {
  if (missing('ogr2ogr', ['--version'])) return t.fail('ogr2ogr is missing: run scripts/install-gdal.sh')
  const { app } = await wfsSetup(t)
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve))
  const { port } = app.server.address() as { port: number }
  const url = `http://127.0.0.1:${port}${BASE}/wfs`
  const dir = tempDir(t, 'gdal-wfs')
  const info = await run('ogrinfo', ['-ro', '-q', `WFS:${url}`], { timeout: 120_000, env: GDAL_ENV })
  t.same(info.stdout.trim().split('\n').filter((l) => /^\d+: /.test(l)).map((l) => l.replace(/^\d+:\s*/, '').replace(/\s*\(.*\)$/, '')), ['vx:parcels', 'vx:places', 'vx:roads'], info.stdout)
  const summary = await run('ogrinfo', ['-ro', '-so', `WFS:${url}`, 'vx:places'], { timeout: 120_000, env: GDAL_ENV })
  t.match(summary.stdout, /Feature Count: 4/)
  t.match(summary.stdout, /name: String/)
  t.match(summary.stdout, /pop: Integer/)
  t.match(summary.stdout, /area: Real/)
  for (const version of ['2.0.0', '1.1.0']) {
    const out = path.join(dir, `places-${version}.geojson`)
    await run('ogr2ogr', ['-f', 'GeoJSON', out, `WFS:${url}?VERSION=${version}`, 'vx:places', '--config', 'OGR_WFS_PAGE_SIZE', '3', '--config', 'OGR_WFS_PAGING_ALLOWED', 'ON'], { timeout: 120_000, env: GDAL_ENV })
    const doc = JSON.parse(fs.readFileSync(out, 'utf8'))
    t.equal(doc.features.length, 4, `${version}: every feature`)
    const byName = Object.fromEntries(doc.features.map((f: { properties: Record<string, unknown> }) => [f.properties.name, f]))
    t.same(Object.keys(byName).sort(), ['Alpha', 'Beta', 'Del "ta" & <co>', 'Gamma'])
    t.equal(byName.Alpha.properties.pop, 100, `${version}: integer attribute`)
    t.equal(byName.Beta.properties.area, 2.5, `${version}: real attribute`)
    // GDAL writes GeoJSON longitude first, whatever the axis order of the GML it read.
    t.same(byName.Alpha.geometry.coordinates, [-10, -5], `${version}: the point where it is`)
    t.same(byName.Beta.geometry.coordinates, [20, 15])
  }
})

const OWSLIB = `
import json, sys
from owslib.wfs import WebFeatureService
url = sys.argv[1]
doc = {}
for v in ['2.0.0', '1.1.0']:
    wfs = WebFeatureService(url, version=v)
    places = wfs['vx:places']
    gml = wfs.getfeature(typename=['vx:places'], maxfeatures=2).read()
    geojson = json.loads(wfs.getfeature(typename=['vx:places'], outputFormat='application/json').read())
    filtered = json.loads(wfs.getfeature(typename=['vx:places'], bbox=(-11, -6, -9, -4, 'EPSG:4326'), outputFormat='application/json').read())
    doc[v] = {
        'title': wfs.identification.title,
        'types': sorted(wfs.contents),
        'bbox': list(places.boundingBoxWGS84),
        'crs': [c.getcode() for c in places.crsOptions],
        'operations': sorted(o.name for o in wfs.operations),
        'gml': gml.decode('utf-8') if isinstance(gml, bytes) else gml,
        'ids': [f['id'] for f in geojson['features']],
        'bboxIds': [f['id'] for f in filtered['features']],
    }
    if v == '2.0.0':
        doc[v]['schema'] = sorted(wfs.get_schema('vx:places')['properties'].items())
print(json.dumps(doc))
`

t.test('OWSLib reads the capabilities of 2.0.0 and 1.1.0, a schema, and features in GML and GeoJSON', async (t) => {
  if (missing('/usr/bin/python3', ['-c', 'import owslib'])) return t.fail('OWSLib is missing: run scripts/install-wms-tools.sh')
  const { app } = await wfsSetup(t)
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve))
  const { port } = app.server.address() as { port: number }
  const { stdout } = await run('/usr/bin/python3', ['-c', OWSLIB, `http://127.0.0.1:${port}${BASE}/wfs`], { timeout: 120_000 })
  const doc = JSON.parse(stdout)
  for (const v of ['2.0.0', '1.1.0']) {
    const d = doc[v]
    t.equal(d.title, 'mapwarden Web Feature Service', `${v}: title`)
    t.same(d.types, ['vx:parcels', 'vx:places', 'vx:roads'], `${v}: types`)
    t.same(d.bbox.slice(0, 4), [-10, -5, 20, 40], `${v}: WGS84 box`)
    t.same(d.crs, ['EPSG:4326'], `${v}: CRS`)
    t.ok(d.operations.includes('GetFeature') && d.operations.includes('DescribeFeatureType'), `${v}: operations ${d.operations}`)
    t.equal([...d.gml.matchAll(/gml:id="places\.\d+"/g)].length, 2, `${v}: two features in GML`)
    t.same(d.ids, ['places.1', 'places.2', 'places.3', 'places.4'], `${v}: GeoJSON`)
    t.same(d.bboxIds, ['places.1'], `${v}: bbox`)
  }
  t.same(Object.fromEntries(doc['2.0.0'].schema), { name: 'string', pop: 'int', area: 'double', founded: 'date', capital: 'boolean' }, 'DescribeFeatureType as OWSLib reads it')
})
