// The SQL of a view with its placeholders as bound parameters, and viewparams as GeoServer's
// ViewParamsKvpParser reads them: the statement text and values the database receives.
import t from 'tap'
import { bindView, parseViewParams, type VirtualTable } from '../../../services/vector/virtual-table.js'

const view = (sql: string, parameters: VirtualTable['parameters']): VirtualTable =>
  ({ name: 'v', sql, escapeSql: false, keyColumns: [], geometries: [{ name: 'geom', type: 'Point', srid: 4326 }], parameters })

t.test('placeholders become $n outside quotes, inside a whole literal and inside a literal\'s text', async (t) => {
  const vt = view("SELECT * FROM t WHERE a = %a% AND b = '%b%' AND c LIKE '%%b%%' -- %a% stays in the comment\n/* '%a%' */ AND d = \"%x\" AND e = 'it''s %a%'", [{ name: 'a', defaultValue: '1' }, { name: 'b', defaultValue: "x' OR 1=1 --" }])
  t.same(bindView(vt, undefined), {
    sql: "SELECT * FROM t WHERE a = $1 AND b = $2 AND c LIKE ('%' || $3::text || '%') -- %a% stays in the comment\n/* '%a%' */ AND d = \"%x\" AND e = ('it''s ' || $4::text)",
    values: ['1', "x' OR 1=1 --", "x' OR 1=1 --", '1']
  })
  t.same(bindView(vt, { a: '7', other: 'ignored' }).values, ['7', "x' OR 1=1 --", "x' OR 1=1 --", '7'])
  t.throws(() => bindView(view('SELECT %a%', [{ name: 'a' }]), undefined), /parameter a of v has no value and no default/)
  t.throws(() => bindView(view('SELECT %a%', [{ name: 'a', regexpValidator: '\\d+' }]), { a: '1 OR 1' }), /does not match its regexpValidator \\d\+/)
  t.same(bindView(view('SELECT %a%', [{ name: 'a', regexpValidator: '\\d+' }]), { a: '12' }), { sql: 'SELECT $1', values: ['12'] })
})

t.test('viewparams: one list for all layers or one per layer, backslash escapes', async (t) => {
  t.same(parseViewParams(undefined, 2), [undefined, undefined])
  t.same(parseViewParams('a:1;b:x\\;y\\:z', 2), [{ a: '1', b: 'x;y:z' }, { a: '1', b: 'x;y:z' }])
  t.same(parseViewParams('a:1,,a:3', 3), [{ a: '1' }, undefined, { a: '3' }])
  t.same(parseViewParams('a:1\\,2', 1), [{ a: '1,2' }])
  t.same(parseViewParams('t:12:30', 1), [{ t: '12:30' }])
  t.throws(() => parseViewParams('a:1,a:2', 3), /2 parameter lists for 3 layers/)
  t.throws(() => parseViewParams('a', 1), /"a" is not name:value/)
})
