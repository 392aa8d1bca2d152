// SLD expressions evaluated as GeoTools does: mixed label content, strConcat, case functions,
// Recode, Categorize, Interpolate (numeric and colour), in and inN, arithmetic.
import t from 'tap'
import { evaluate, type Expr } from '../../../../services/render/vector/expression.js'

const p = (prop: string): Expr => ({ prop })
const l = (lit: string | number): Expr => ({ lit: String(lit) })
const fn = (name: string, ...args: Expr[]): Expr => ({ fn: name, args })

t.test('labels, text functions and arithmetic', async (t) => {
  const props = { name: 'Oslo', pop: 700000, Kind: 'city', none: null }
  t.equal(evaluate({ cat: [l('n: '), p('name'), l(' ('), p('pop'), l(')')] }, props), 'n: Oslo (700000)')
  t.equal(evaluate({ cat: [p('none'), l('x')] }, props), 'x', 'a null reads as nothing in mixed content')
  t.equal(evaluate(p('kind'), props), 'city', 'property names match case-insensitively when not exact')
  t.equal(evaluate(fn('strconcat', p('name'), l('!')), props), 'Oslo!')
  t.equal(evaluate(fn('concatenate', p('name'), p('none'), l('-'), p('pop')), props), 'Oslo-700000')
  t.equal(evaluate(fn('strtouppercase', p('name')), props), 'OSLO')
  t.equal(evaluate(fn('strtolowercase', p('name')), props), 'oslo')
  t.equal(evaluate({ op: '/', args: [p('pop'), l(1000)] }, props), 700)
  t.equal(evaluate({ op: '+', args: [p('none'), l(1)] }, props), null)
})

t.test('Recode, Categorize, Interpolate, in', async (t) => {
  const recode = fn('recode', p('k'), l('a'), l('#FF0000'), l(2), l('#00FF00'))
  t.equal(evaluate(recode, { k: 'a' }), '#FF0000')
  t.equal(evaluate(recode, { k: 2 }), '#00FF00', 'numbers compare as numbers')
  t.equal(evaluate(recode, { k: '2' }), '#00FF00')
  t.equal(evaluate(recode, { k: 'z' }), null, 'no key: null (the symbolizer default applies)')
  const cat = fn('categorize', p('v'), l('low'), l(10), l('mid'), l(20), l('high'))
  t.same([5, 10, 15, 20, 25].map((v) => evaluate(cat, { v })), ['low', 'mid', 'mid', 'high', 'high'], 'a threshold starts its class (succeeding)')
  const pre = fn('categorize', p('v'), l('low'), l(10), l('mid'), l(20), l('high'), l('preceding'))
  t.same([10, 10.5, 20, 21].map((v) => evaluate(pre, { v })), ['low', 'mid', 'mid', 'high'], 'preceding: the threshold ends the class below')
  t.equal(evaluate(cat, { v: null }), null)
  const num = fn('interpolate', p('v'), l(0), l(2), l(100), l(12))
  t.same([-5, 0, 50, 100, 200].map((v) => evaluate(num, { v })), [2, 2, 7, 12, 12], 'linear, clamped to the ends')
  const colour = fn('interpolate', p('v'), l(0), l('#000000'), l(100), l('#FF8000'), l('color'))
  t.equal(evaluate(colour, { v: 50 }), '#804000')
  const cosine = fn('interpolate', p('v'), l(0), l(0), l(10), l(10), l('cosine'), l('numeric'))
  t.ok(Math.abs((evaluate(cosine, { v: 5 }) as number) - 5) < 1e-9)
  t.ok(Math.abs((evaluate(cosine, { v: 2.5 }) as number) - 10 * (1 - Math.cos(Math.PI / 4)) / 2) < 1e-9)
  t.equal(evaluate(fn('in', p('k'), l('a'), l('b')), { k: 'b' }), true)
  t.equal(evaluate(fn('in3', p('k'), l(1), l(2), l(3)), { k: 4 }), false)
})
