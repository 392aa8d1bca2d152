import t from 'tap'
import { parseMosaicDefinition, matchesWildcard } from '../../../services/mosaics/indexer.js'
import { collectAttributes, parseDate } from '../../../services/mosaics/collect.js'
import { parseProperties } from '../../../services/mosaics/properties.js'

t.test('properties files: escapes, continuations, separators and comments', async (t) => {
  const p = parseProperties('# comment\n! other\nLoose\\ bbox=true\nkey : value\nlong=a,\\\n  b\nempty=\nspaced value\n')
  t.same([...p.entries()], [['Loose bbox', 'true'], ['key', 'value'], ['long', 'a,b'], ['empty', ''], ['spaced', 'value']])
})

t.test('indexer.properties settings and regex collectors fill time, elevation and strings', async (t) => {
  const files = new Map([
    ['indexer.properties', [
      'Schema=*the_geom:Polygon,location:String,time:java.util.Date,elevation:Double,run:String',
      'PropertyCollectors=TimestampFileNameExtractorSPI[timeregex](time),DoubleFileNameExtractorSPI[elevationregex](elevation),StringFileNameExtractorSPI[runregex](run)',
      'TimeAttribute=time', 'ElevationAttribute=elevation', 'Wildcard=*.tif', 'Recursive=false', 'CanBeEmpty=true', 'Name=polyphemus'
    ].join('\n')],
    ['timeregex.properties', 'regex=[0-9]{8}T[0-9]{4},format=yyyyMMdd\'T\'HHmm\n'],
    ['elevationregex.properties', 'regex=_(-?[0-9.]+)m\n'],
    ['runregex.properties', 'regex=run[A-Z]\n']
  ])
  const s = await parseMosaicDefinition(files)
  t.same(s.schema.map((a) => [a.name, a.type, a.binding]), [
    ['the_geom', 'Geometry', 'org.locationtech.jts.geom.Polygon'], ['location', 'String', 'java.lang.String'],
    ['time', 'Date', 'java.util.Date'], ['elevation', 'Double', 'java.lang.Double'], ['run', 'String', 'java.lang.String']
  ])
  t.equal(s.timeAttribute, 'time')
  t.equal(s.elevationAttribute, 'elevation')
  t.equal(s.canBeEmpty, true)
  t.equal(s.recursive, false)
  t.equal(s.name, 'polyphemus')
  t.equal(s.indexStore, 'embedded')
  const now = new Date('2030-01-01T00:00:00Z')
  t.same(collectAttributes(s, 'poly_20130301T1230_-12.5m_runB.tif', now, now), { time: '2013-03-01T12:30:00.000Z', elevation: -12.5, run: 'runB' })
  t.same(collectAttributes(s, 'nothing.tif', now, now), { time: null, elevation: null, run: null })
  t.ok(matchesWildcard('a.TIF', s.wildcard))
  t.notOk(matchesWildcard('a.png', s.wildcard))
})

t.test('parseDate reads digits or a SimpleDateFormat pattern, in UTC', async (t) => {
  t.equal(parseDate('20081101T0000000'), '2008-11-01T00:00:00.000Z')
  t.equal(parseDate('2008-11-01T06:30:15Z'), '2008-11-01T06:30:15.000Z')
  t.equal(parseDate('2013030112', 'yyyyMMddHH'), '2013-03-01T12:00:00.000Z')
  t.equal(parseDate('01-03-13', 'dd-MM-yy'), '2013-03-01T00:00:00.000Z')
  t.equal(parseDate('20081341'), undefined)
})

t.test('definition errors name the problem', async (t) => {
  const def = (indexer: string, extra: Array<[string, string]> = []) => parseMosaicDefinition(new Map([['indexer.properties', indexer], ...extra]))
  await t.rejects(def('Schema=the_geom:Polygon,a:String\nPropertyCollectors=IntegerFileNameExtractorSPI[r](a)', [['r.properties', 'regex=[0-9]+']]), { message: /cannot fill a of type String/ })
  await t.rejects(def('PropertyCollectors=TimestampFileNameExtractorSPI[r](time)', [['r.properties', 'regex=x']]), { message: /fills time, which is not in the Schema/ })
  await t.rejects(def('TimeAttribute=nope'), { message: /TimeAttribute nope is not in the Schema/ })
  await t.rejects(def('Schema=the_geom:Polygon,bad-name:String'), { message: /bad attribute name/ })
  await t.rejects(def('Schema=a:Polygon,b:MultiPolygon'), { message: /more than one geometry/ })
  await t.rejects(def('PropertyCollectors=ExecSPI[r](location)'), { message: /bad PropertyCollectors entry|unsupported property collector/ })
  await t.rejects(def('Name=../x'), { message: /bad Name/ })
  await t.rejects(def('Schema=${HOME}'), { message: /substitutions/ })
})
