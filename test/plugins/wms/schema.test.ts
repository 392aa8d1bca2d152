// The WMS documents are valid against the OGC schemas: xmllint (Debian's libxml2-utils) checks
// GetCapabilities 1.3.0 and the 1.3.0 exception report against their XML Schemas, and the 1.1.1
// ones against their DTDs. The schemas come from Debian's python3-mapproxy, which ships the OGC
// WMS schemas for its own tests (scripts/install-wms-tools.sh installs it); nothing is fetched.
import t from 'tap'
import path from 'node:path'
import { build } from '../../helper.js'
import { timeMosaic, wmsUrl, worldMosaic, xmllint } from './helpers.js'

const SCHEMAS = '/usr/share/python3-mapproxy/test/schemas/wms'


t.test('GetCapabilities and exception reports validate against the OGC WMS schemas, both versions', async (t) => {
  const app = await build(t)
  await worldMosaic(app)
  await timeMosaic(app)
  let res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }) })
  t.equal(res.statusCode, 200)
  t.match(res.body, '<Dimension name="time"')
  xmllint(t, res.body, 'capabilities 1.3.0', ['--schema', path.join(SCHEMAS, '1.3.0/capabilities_1_3_0.xsd')])
  // The check can fail: an element out of the schema's order is refused.
  xmllint(t, res.body.replace(/(<Service>\s*<Name>WMS<\/Name>)/, '$1<Fees>none</Fees>'), 'a misordered document', ['--schema', path.join(SCHEMAS, '1.3.0/capabilities_1_3_0.xsd')], false)
  res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.1.1' }) })
  t.equal(res.statusCode, 200)
  xmllint(t, res.body, 'capabilities 1.1.1', ['--dtdvalid', path.join(SCHEMAS, '1.1.1/WMS_MS_Capabilities.dtd')])
  xmllint(t, res.body.replace('<Capability>', '<Capability><Bogus/>'), 'an element the DTD lacks', ['--dtdvalid', path.join(SCHEMAS, '1.1.1/WMS_MS_Capabilities.dtd')], false)
  res = await app.inject({ method: 'GET', url: `${wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }, '/ws/wms')}` })
  xmllint(t, res.body, 'a workspace\'s capabilities 1.3.0', ['--schema', path.join(SCHEMAS, '1.3.0/capabilities_1_3_0.xsd')])

  const bad = { SERVICE: 'WMS', REQUEST: 'GetMap', LAYERS: 'nope:nothing', STYLES: '', BBOX: '0,0,1,1', WIDTH: 8, HEIGHT: 8, FORMAT: 'image/png' }
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...bad, VERSION: '1.3.0', CRS: 'EPSG:4326' }) })
  t.match(res.body, 'code="LayerNotDefined"')
  xmllint(t, res.body, 'exception report 1.3.0', ['--schema', path.join(SCHEMAS, '1.3.0/exceptions_1_3_0.xsd')])
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...bad, VERSION: '1.1.1', SRS: 'EPSG:4326' }) })
  t.match(res.body, 'code="LayerNotDefined"')
  xmllint(t, res.body, 'exception report 1.1.1', ['--dtdvalid', path.join(SCHEMAS, '1.1.1/WMS_exception_1_1_1.dtd')])
})
