// GeoWebCache's built-in grid sets through HTTP: the list with a link to each, one grid set as GWC's
// XMLGridSet (numbers as Java writes doubles), JSON, 404 for an unknown name, admin only.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { javaDouble } from '../../../plugins/gwc/gridsets.js'

const G = `${BASE}/gwc/rest/gridsets`

t.test('Java\'s Double.toString forms', async (t) => {
  t.same([0, 1, -180, 0.703125, 0.00028, 20037508.34, 111319.49079327358, 1e-7].map(javaDouble),
    ['0.0', '1.0', '-180.0', '0.703125', '2.8E-4', '2.003750834E7', '111319.49079327358', '1.0E-7'])
})

t.test('GET /gwc/rest/gridsets lists the grid sets; one is an XMLGridSet', async (t) => {
  const app = await build(t)
  const res = await app.inject({ url: G, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, '<gridSets>\n  <gridSet>\n    <name>EPSG:4326</name>\n    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/gwc/rest/gridsets/EPSG%3A4326.xml" type="text/xml"/>\n  </gridSet>\n' +
    '  <gridSet>\n    <name>EPSG:900913</name>\n    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/gwc/rest/gridsets/EPSG%3A900913.xml" type="text/xml"/>\n  </gridSet>\n' +
    ['GlobalCRS84Pixel', 'GlobalCRS84Scale', 'GoogleCRS84Quad'].map((n) => `  <gridSet>\n    <name>${n}</name>\n    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/gwc/rest/gridsets/${n}.xml" type="text/xml"/>\n  </gridSet>\n`).join('') + '</gridSets>')
  t.equal((await app.inject({ url: `${G}.json`, headers: ADMIN })).body, '["EPSG:4326","EPSG:900913","GlobalCRS84Pixel","GlobalCRS84Scale","GoogleCRS84Quad"]')
  const one = await app.inject({ url: `${G}/EPSG:4326.xml`, headers: ADMIN })
  t.equal(one.statusCode, 200)
  t.match(one.body, /^<gridSet>\n {2}<name>EPSG:4326<\/name>\n {2}<srs>\n {4}<number>4326<\/number>\n {2}<\/srs>\n {2}<extent>\n {4}<coords>\n {6}<double>-180.0<\/double>\n {6}<double>-90.0<\/double>\n {6}<double>180.0<\/double>\n {6}<double>90.0<\/double>\n {4}<\/coords>\n {2}<\/extent>\n {2}<alignTopLeft>false<\/alignTopLeft>\n {2}<resolutions>\n {4}<double>0.703125<\/double>\n {4}<double>0.3515625<\/double>/)
  t.match(one.body, /<metersPerUnit>111319.49079327358<\/metersPerUnit>\n {2}<pixelSize>2.8E-4<\/pixelSize>\n {2}<scaleNames>\n {4}<string>EPSG:4326:0<\/string>/)
  t.match(one.body, /<tileHeight>256<\/tileHeight>\n {2}<tileWidth>256<\/tileWidth>\n {2}<yCoordinateFirst>true<\/yCoordinateFirst>\n<\/gridSet>$/)
  t.equal((one.body.match(/<double>/g) ?? []).length, 4 + 22, 'four extent numbers and 22 resolutions')
  const json = await app.inject({ url: `${G}/EPSG:900913.json`, headers: ADMIN })
  t.match(json.json().gridSet, { name: 'EPSG:900913', srs: { number: 900913 }, extent: { coords: [-20037508.34, -20037508.34, 20037508.34, 20037508.34] }, tileWidth: 256 })
  const unknown = await app.inject({ url: `${G}/EPSG:27700.xml`, headers: ADMIN })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.body, 'Failed to get GridSet. A GridSet with name "EPSG:27700" does not exist.')
  t.equal((await app.inject({ url: G })).statusCode, 401, 'admin only')
})
