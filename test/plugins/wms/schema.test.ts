// The WMS documents are valid against the OGC schemas: xmllint (Debian's libxml2-utils) checks
// GetCapabilities 1.3.0 and the 1.3.0 exception report against their XML Schemas, and the 1.1.1
// ones against their DTDs. The schemas come from Debian's python3-mapproxy, which ships the OGC
// WMS schemas for its own tests (scripts/install-wms-tools.sh installs it); nothing is fetched.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { build } from '../../helper.js'
import { timeMosaic, wmsUrl, worldMosaic } from './helpers.js'

const SCHEMAS = '/usr/share/python3-mapproxy/test/schemas/wms'

/** xmllint's verdict on a document; `against` is ['--schema', xsd] or ['--dtdvalid', dtd]. */
function validate (t: Test, body: string, against: string[], label: string, valid = true) {
  if (!fs.existsSync(against[1])) return t.fail(`${against[1]} is missing: run scripts/install-wms-tools.sh`)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-wms-schema-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'doc.xml')
  // The 1.1.1 DOCTYPE names the DTD by URL; --dtdvalid gives the local copy instead.
  fs.writeFileSync(file, against[0] === '--dtdvalid' ? body.replace(/<!DOCTYPE[^>]*>/, '') : body)
  const r = spawnSync('xmllint', ['--noout', '--nonet', ...against, file], { encoding: 'utf8' })
  if (!valid) return t.not(r.status, 0, `${label}: refused by the schema`)
  t.equal(r.status, 0, `${label}: ${r.status === 0 ? 'valid' : r.stderr.split('\n').slice(0, 5).join(' | ')}`)
}

t.test('GetCapabilities and exception reports validate against the OGC WMS schemas, both versions', async (t) => {
  const app = await build(t)
  await worldMosaic(app)
  await timeMosaic(app)
  let res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }) })
  t.equal(res.statusCode, 200)
  t.match(res.body, '<Dimension name="time"')
  validate(t, res.body, ['--schema', path.join(SCHEMAS, '1.3.0/capabilities_1_3_0.xsd')], 'capabilities 1.3.0')
  // The check can fail: an element out of the schema's order is refused.
  validate(t, res.body.replace(/(<Service>\s*<Name>WMS<\/Name>)/, '$1<Fees>none</Fees>'), ['--schema', path.join(SCHEMAS, '1.3.0/capabilities_1_3_0.xsd')], 'a misordered document', false)
  res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.1.1' }) })
  t.equal(res.statusCode, 200)
  validate(t, res.body, ['--dtdvalid', path.join(SCHEMAS, '1.1.1/WMS_MS_Capabilities.dtd')], 'capabilities 1.1.1')
  validate(t, res.body.replace('<Capability>', '<Capability><Bogus/>'), ['--dtdvalid', path.join(SCHEMAS, '1.1.1/WMS_MS_Capabilities.dtd')], 'an element the DTD lacks', false)
  res = await app.inject({ method: 'GET', url: `${wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }, '/ws/wms')}` })
  validate(t, res.body, ['--schema', path.join(SCHEMAS, '1.3.0/capabilities_1_3_0.xsd')], 'a workspace\'s capabilities 1.3.0')

  const bad = { SERVICE: 'WMS', REQUEST: 'GetMap', LAYERS: 'nope:nothing', STYLES: '', BBOX: '0,0,1,1', WIDTH: 8, HEIGHT: 8, FORMAT: 'image/png' }
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...bad, VERSION: '1.3.0', CRS: 'EPSG:4326' }) })
  t.match(res.body, 'code="LayerNotDefined"')
  validate(t, res.body, ['--schema', path.join(SCHEMAS, '1.3.0/exceptions_1_3_0.xsd')], 'exception report 1.3.0')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...bad, VERSION: '1.1.1', SRS: 'EPSG:4326' }) })
  t.match(res.body, 'code="LayerNotDefined"')
  validate(t, res.body, ['--dtdvalid', path.join(SCHEMAS, '1.1.1/WMS_exception_1_1_1.dtd')], 'exception report 1.1.1')
})
