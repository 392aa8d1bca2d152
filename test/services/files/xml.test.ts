import t from 'tap'
import { parseXml, asArray } from '../../../services/files/xml.js'
import { toJson, toXml, Link } from '../../../plugins/infra/representation.js'
import { attr, child, childText, children, elementNames, rootOf, text, xmlnsOf } from '../../../services/files/xml-nodes.js'

t.test('XML bodies parse to GeoServer-JSON-like objects', async (t) => {
  const doc = await parseXml('<rules><rule resource="a.b.r">ROLE_A</rule><rule resource="*.*.w">ADMIN</rule></rules>')
  t.same(doc, { rules: { rule: [{ _: 'ROLE_A', $: { resource: 'a.b.r' } }, { _: 'ADMIN', $: { resource: '*.*.w' } }] } })
  t.same(asArray(undefined), [])
  t.same(asArray('x'), ['x'])
})

t.test('DOCTYPE, entities and deep nesting are refused', async (t) => {
  const laughs = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><a>&lol2;</a>'
  await t.rejects(parseXml(laughs), { code: 'MW_CORE_DOCTYPE_NOT_ALLOWED' })
  await t.rejects(parseXml('<!DOCTYPE a SYSTEM "http://127.0.0.1:1/x"><a/>'), { code: 'MW_CORE_DOCTYPE_NOT_ALLOWED' })
  await t.rejects(parseXml('<a>'.repeat(100000)), { code: 'MW_CORE_TOO_DEEP' })
  await t.rejects(parseXml('<a><b></a>'), { code: 'MW_CORE_MALFORMED_XML' })
})

t.test('representation: attributes, text, links, one-item and empty lists', async (t) => {
  const doc = { dataStore: { name: 'x', connectionParameters: { entry: [{ '@key': 'dbtype', $: 'app-schema' }] }, featureTypes: new Link('http://h/rest/ft') } }
  t.equal(toJson(doc), '{"dataStore":{"name":"x","connectionParameters":{"entry":[{"@key":"dbtype","$":"app-schema"}]},"featureTypes":"http://h/rest/ft.json"}}')
  t.equal(toXml(doc), [
    '<dataStore>',
    '  <name>x</name>',
    '  <connectionParameters>',
    '    <entry key="dbtype">app-schema</entry>',
    '  </connectionParameters>',
    '  <featureTypes>',
    '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://h/rest/ft.xml" type="application/xml"/>',
    '  </featureTypes>',
    '</dataStore>'
  ].join('\n'))
  t.equal(toXml({ styles: { style: [] } }), '<styles/>')
  t.equal(toJson({ styles: { style: [] } }), '{"styles":""}')
  t.equal(toXml({ a: { b: '<&>"' } }), '<a>\n  <b>&lt;&amp;&gt;&quot;</b>\n</a>')
})

t.test('representation layouts: a declaration, one line, `<x />` and a final newline', async (t) => {
  const jaxb = { declaration: '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>', compact: true }
  t.equal(toXml({ roles: { role: ['ADMIN', 'a&b'] } }, jaxb), '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><roles><role>ADMIN</role><role>a&amp;b</role></roles>')
  t.equal(toXml({ users: { user: [] } }, jaxb), '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><users/>')
  const map = { declaration: '<?xml version="1.0" encoding="UTF-8"?>', spaceBeforeSlash: true, finalNewline: true }
  t.equal(toXml({ rules: { rule: [{ '@resource': 'ws.l.r', $: 'ROLE_A' }, { '@resource': 'x.y.w', $: '' }] } }, map),
    '<?xml version="1.0" encoding="UTF-8"?>\n<rules>\n  <rule resource="ws.l.r">ROLE_A</rule>\n  <rule resource="x.y.w"></rule>\n</rules>\n')
  t.equal(toXml({ catalog: {} }, map), '<?xml version="1.0" encoding="UTF-8"?>\n<catalog />\n')
})

t.test('tree helpers read parsed documents by local name', async (t) => {
  const doc = await parseXml('<sld:Root xmlns:sld="urn:x" version="1.0"><sld:Name> n </sld:Name><Rule/><Rule><Title>t</Title></Rule></sld:Root>')
  const [name, root] = rootOf(doc)
  t.equal(name, 'sld:Root')
  t.equal(attr(root, 'version'), '1.0')
  t.same([...xmlnsOf(root)], [['sld', 'urn:x']])
  t.equal(childText(root, 'Name'), 'n')
  t.equal(children(root, 'Rule').length, 2)
  t.same(elementNames(root), ['sld:Name', 'Rule'])
  t.equal(text(child(root, 'Missing')), undefined)
})
