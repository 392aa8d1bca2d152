// An SQL view's VIEWPARAMS as a tile parameter (GeoServer's GWC parameter filter on VIEWPARAMS): each
// distinct normalised set of values is its own cached tile set drawn with those values bound, values
// equal to the defaults (or none) are the default tiles, a value its regexpValidator refuses is a 400
// naming VIEWPARAMS; image tiles and vector tiles (PostGIS' ST_AsMVT) alike.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { postgisStore } from '../../fixtures/postgis-store.js'
import { at, pixels } from '../wms/helpers.js'

const TABLES = `
  CREATE TABLE towns (id integer PRIMARY KEY, name text, kind text, pop integer, geom geometry(Point, 4326));
  INSERT INTO towns VALUES (1, 'Alpha', 'city', 1000, ST_SetSRID(ST_MakePoint(5, 30), 4326)),
    (2, 'Beta', 'village', 50, ST_SetSRID(ST_MakePoint(25, 30), 4326)),
    (3, 'Gamma', 'city', 500, ST_SetSRID(ST_MakePoint(15, 5), 4326));
`
const VIEW = `<featureType><name>towns_by_kind</name><srs>EPSG:4326</srs><metadata><entry key="JDBC_VIRTUAL_TABLE"><virtualTable>
  <name>towns_by_kind</name><sql>SELECT id, name, pop, geom FROM towns WHERE kind = '%kind%' AND pop &gt;= %minpop%</sql><escapeSql>true</escapeSql>
  <keyColumn>id</keyColumn><geometry><name>geom</name><type>Point</type><srid>4326</srid></geometry>
  <parameter><name>kind</name><defaultValue>city</defaultValue><regexpValidator>^[\\w\\d\\s]+$</regexpValidator></parameter>
  <parameter><name>minpop</name><defaultValue>0</defaultValue><regexpValidator>^\\d+$</regexpValidator></parameter>
</virtualTable></entry></metadata></featureType>`

t.test('VIEWPARAMS on tile URLs of an SQL view: a tile set per normalised value, the defaults the default tiles, refused values a 400', async (t) => {
  const app = await build(t)
  await postgisStore(t, app, TABLES, { store: 'db' })
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/vx/datastores/db/featuretypes`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: VIEW })
  t.equal(res.statusCode, 201, res.body)

  // Tile 2/2/1 of EPSG:900913 covers lon 0..90, lat 0..66.5: Alpha (5,30) is pixel (14,166), Beta (25,30)
  // pixel (71,166), Gamma (15,5) pixel (43,242); the default point style is a red square.
  const tile = async (q: string) => {
    const r = await app.inject({ url: `${BASE}/gwc/service/xyz/vx:towns_by_kind/EPSG:900913/2/2/1.png${q}`, headers: ADMIN })
    t.equal(r.statusCode, 200, r.body)
    const p = await pixels(r.rawPayload)
    const red = (x: number, y: number) => { const px = at(p, x, y); return px[0] > 200 && px[1] < 60 && px[3] > 200 }
    return { cache: r.headers['geowebcache-cache-result'], bytes: r.rawPayload, drawn: ['Alpha', 'Beta', 'Gamma'].filter((_, i) => red(...([[14, 166], [71, 166], [43, 242]][i] as [number, number]))) }
  }
  const byDefault = await tile('')
  t.equal(byDefault.cache, 'MISS')
  t.same(byDefault.drawn, ['Alpha', 'Gamma'], 'no VIEWPARAMS: the defaults (kind city, minpop 0)')
  for (const q of ['kind:city', 'minpop:0;kind:city', 'kind:city;other:1']) {
    const same = await tile(`?VIEWPARAMS=${encodeURIComponent(q)}`)
    t.equal(same.cache, 'HIT', `${q}: the defaults' tile set`)
    t.ok(same.bytes.equals(byDefault.bytes))
  }
  const village = await tile('?VIEWPARAMS=kind:village')
  t.equal(village.cache, 'MISS', 'another value: its own tile set')
  t.same(village.drawn, ['Beta'], 'drawn with kind village bound')
  t.equal((await tile('?viewparams=kind:village')).cache, 'HIT', 'cached; the key is case-insensitive')
  const big = await tile(`?VIEWPARAMS=${encodeURIComponent('minpop:600')}`)
  t.equal(big.cache, 'MISS')
  t.same(big.drawn, ['Alpha'], 'minpop 600 bound')
  t.equal((await tile(`?VIEWPARAMS=${encodeURIComponent('kind:city;minpop:600')}`)).cache, 'HIT', 'the default kind named or not: one tile set')
  t.equal((await tile('')).cache, 'HIT', 'the default tiles stayed')

  // A value its regexpValidator refuses (no SQL reaches the database): a 400 naming VIEWPARAMS.
  res = await app.inject({ url: `${BASE}/gwc/service/xyz/vx:towns_by_kind/EPSG:900913/2/2/1.png?VIEWPARAMS=${encodeURIComponent("kind:city' OR '1'='1")}`, headers: ADMIN })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'VIEWPARAMS')
  t.match(res.body, 'regexpValidator')
  // WMTS takes it too; on a layer that is no SQL view it is no parameter.
  res = await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=vx:towns_by_kind&STYLE=&TILEMATRIXSET=EPSG:900913&TILEMATRIX=EPSG:900913:2&TILEROW=1&TILECOL=2&FORMAT=image/png&VIEWPARAMS=kind:village`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')

  // Vector tiles: the database encodes the view with the values bound.
  const mvt = async (q: string) => {
    const r = await app.inject({ url: `${BASE}/gwc/service/xyz/vx:towns_by_kind/EPSG:900913/2/2/1.pbf${q}`, headers: ADMIN })
    t.equal(r.statusCode, 200, r.body)
    return r.rawPayload.toString('latin1')
  }
  const dflt = await mvt('')
  t.ok(dflt.includes('Alpha') && dflt.includes('Gamma') && !dflt.includes('Beta'), 'the defaults\' features')
  const v = await mvt('?VIEWPARAMS=kind:village')
  t.ok(v.includes('Beta') && !v.includes('Alpha'), 'kind village\'s features')
})
