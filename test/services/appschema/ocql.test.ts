import t from 'tap'
import { evaluate, parseOcql } from '../../../services/appschema/ocql.js'
import { readPropertyRows } from '../../../services/appschema/row-sources.js'
import { parseSteps } from '../../../services/appschema/type-mapping.js'

const row = { id: 'mf1', values: { NAME: 'Gunthorpe', KIND: 'i', N: 3, EMPTY: null } }
const ev = (text: string) => evaluate(parseOcql(text), row)

t.test('OCQL expressions of mappings: attributes, literals, arithmetic and functions', async (t) => {
  t.equal(ev('NAME'), 'Gunthorpe')
  t.equal(ev('name'), 'Gunthorpe', 'attribute names match without regard to case')
  t.equal(ev('ID'), 'mf1', 'ID the row lacks is its feature id')
  t.equal(ev('getId()'), 'mf1')
  t.equal(ev("strConcat('urn:x:', NAME)"), 'urn:x:Gunthorpe')
  t.equal(ev("strConcat('a', EMPTY)"), null, 'strConcat of a null is null')
  t.equal(ev("if_then_else(equalTo(KIND, 'i'), 'instance', 'typicalNorm')"), 'instance')
  t.equal(ev("Recode(KIND, 'I', 'instance', 't', 'typicalNorm')"), 'instance', 'Recode matches string keys without case')
  t.equal(ev("Recode(KIND, 'x', 'y')"), null)
  t.equal(ev('N * 2 + 1'), 7)
  t.equal(ev('(N + 1) / 2'), 2)
  t.equal(ev('-N'), -3)
  t.equal(ev("strToUpperCase(strSubstring(NAME, 0, 3))"), 'GUN')
  t.equal(ev('isNull(EMPTY)'), true)
})

t.test('bad OCQL is refused with the reason', async (t) => {
  t.throws(() => parseOcql('nosuch(NAME)'), { message: /^unknown function nosuch \(known: strconcat, / })
  t.throws(() => parseOcql('strConcat(NAME)'), { message: 'strConcat takes 2 to 64 arguments, not 1' })
  t.throws(() => parseOcql("'open"), { message: /unterminated string/ })
  t.throws(() => parseOcql('NAME NAME'), { message: /unexpected "NAME"/ })
})

t.test('property files are read as typed rows with WKT geometries', async (t) => {
  const r = readPropertyRows('_=NAME:String,N:Integer,G:Point:srid=4326\n# comment\na.1=x|4|POINT(1 2)\na.2=|5|\n')
  if (typeof r === 'string') return t.fail(r)
  t.same(r.attributes, [{ name: 'NAME', type: 'String' }, { name: 'N', type: 'Integer' }, { name: 'G', type: 'Point', srid: 4326 }])
  t.same(r.rows, [
    { id: 'a.1', values: { NAME: 'x', N: 4, G: { type: 'Point', coordinates: [1, 2] } } },
    { id: 'a.2', values: { NAME: '', N: 5, G: null } }
  ])
  t.match(readPropertyRows('_=G:Point\na=POINT(1 x)\n'), /^line 2: G: /)
  t.equal(readPropertyRows('a=b\n'), 'no "_=" header line declaring the attributes')
})

t.test('targetAttribute XPaths: nested and indexed steps', async (t) => {
  t.same(parseSteps('gsml:eventAge/gsml:CGI_TermValue/gsml:value'), [
    { prefix: 'gsml', local: 'eventAge' }, { prefix: 'gsml', local: 'CGI_TermValue' }, { prefix: 'gsml', local: 'value' }
  ])
  t.same(parseSteps('gml:name[2]'), [{ prefix: 'gml', local: 'name', index: 2 }])
  t.throws(() => parseSteps('gml:name[x]'), { message: /is not a step of an XPath/ })
})
