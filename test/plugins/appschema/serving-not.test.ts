// A NOT over a multi-valued property (the denormalised GeologicUnit's gml:name) answers the same
// whether it is evaluated in SQL (PostGIS), on the rows of a property file or on the built features
// (a part only they answer): no value matches, as GeoTools evaluates a NOT of a MatchAction ANY.
import t from 'tap'
import { postgisSources, setup, sourcesIn, wfs } from './serving-helpers.js'

t.test('a NOT over a multi-valued property answers the same in SQL (PostGIS) and on the built features (property files): no value matches', async (t) => {
  const props = await setup(t)
  const app = await setup(t, sourcesIn(await postgisSources(t)))
  const ids = (body: string) => [...body.matchAll(/<gsml:GeologicUnit gml:id="([^"]+)"/g)].map((m) => m[1])
  // gu.25678 is named 'Clifton Formation' and '-Tr2': a NOT of the first leaves it out.
  const cases = [
    ['NOT gml:name = \'Clifton Formation\'', ['gu.25682', 'gu.25699']],
    // The same NOT with a part only the built feature answers (a client property): all of it after the read.
    ['NOT gml:name = \'Clifton Formation\' AND NOT gml:name/@codeSpace = \'none\'', ['gu.25682', 'gu.25699']],
    ['NOT (gml:name = \'-Tr2\' OR gml:name = \'Mercia Mudstone Group\')', ['gu.25699']]
  ] as const
  for (const [cql, want] of cases) {
    for (const [label, a] of [['property files', props], ['PostGIS', app]] as const) {
      const res = await wfs(a, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:GeologicUnit', CQL_FILTER: cql })
      t.equal(res.statusCode, 200, res.body.slice(0, 500))
      t.same(ids(res.body), want, `${label}: ${cql}`)
      const hits = await wfs(a, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:GeologicUnit', CQL_FILTER: cql, resultType: 'hits' })
      t.match(hits.body, `numberMatched="${want.length}"`, `${label}: hits of ${cql}`)
    }
  }
  // Through the chain (always after the read): mf2 and mf3 are specified by gu.25678.
  const res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', CQL_FILTER: 'NOT gsml:specification/gsml:GeologicUnit/gml:name = \'-Tr2\'' })
  t.same([...res.body.matchAll(/<gsml:MappedFeature gml:id="([^"]+)"/g)].map((m) => m[1]), ['mf1', 'mf4'])
})
