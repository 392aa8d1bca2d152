// Bytes as sent (issue "real clients, round two", 5): an XML body without a charset parameter is
// decoded as its byte order mark or XML declaration says (UTF-8, UTF-16, ISO-8859-1,
// windows-1252); a charset parameter wins; an unknown encoding is a 400 naming it.
import t from 'tap'
import { build, ADMIN, BASE } from '../helper.js'

const post = (app: any, body: Buffer, type = 'text/xml') =>
  app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': type }, payload: body })

t.test('XML bodies are decoded by their declaration or byte order mark', async (t) => {
  const app = await build(t)
  const latin1 = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><workspace><name>caf'), Buffer.from([0xe9]), Buffer.from('1</name></workspace>')])
  let res = await post(app, latin1)
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'café1')
  const cp1252 = Buffer.concat([Buffer.from("<?xml version='1.0' encoding='windows-1252'?><workspace><name>na"), Buffer.from([0xef]), Buffer.from('ve</name></workspace>')])
  res = await post(app, cp1252)
  t.equal(res.body, 'naïve')
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<?xml version="1.0" encoding="UTF-16"?><workspace><name>straße</name></workspace>', 'utf16le')])
  res = await post(app, utf16)
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'straße')
  const bom8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<workspace><name>ünï</name></workspace>')])
  t.equal((await post(app, bom8)).body, 'ünï')
  // A charset parameter wins over the declaration.
  const declaredWrong = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><workspace><name>ñandú</name></workspace>')
  t.equal((await post(app, declaredWrong, 'text/xml; charset=utf-8')).body, 'ñandú')
  const before = (await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: ADMIN })).body
  res = await post(app, Buffer.from('<?xml version="1.0" encoding="x-klingon"?><workspace><name>q</name></workspace>'))
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'Unknown encoding "x-klingon" in the XML declaration')
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: ADMIN })).body, before, 'nothing created')
})
