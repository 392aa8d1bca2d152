// Label widths measured with the font file fontconfig draws the text with (font-faces.ts,
// text-metrics.ts), on the fonts scripts/install-wms-tools.sh installs: DejaVu and Liberation. That
// the widths match what librsvg draws: test/plugins/wms/vector-labels.test.ts, on GetMap's pixels.
import { chmodSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { createFontFaces, familiesOf, fontPattern } from '../../../../services/render/vector/font-faces.js'
import { GLYPH_WIDTHS } from '../../../../services/render/vector/glyph-widths.js'
import { createTextMetrics, glyphAdvances, textWidth } from '../../../../services/render/vector/text-metrics.js'

type Style = 'normal' | 'italic' | 'oblique'
const font = (family: string, size = 20, style: Style = 'normal', weight: 'normal' | 'bold' = 'normal') => ({ family, size, style, weight })
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
/** A stand-in for fc-match printing its arguments' answer: the script's text. */
function matcher (t: Test, out: string): string {
  const file = path.join(t.testdir(), 'fc-match')
  writeFileSync(file, `#!/bin/sh\nprintf '%s' '${out}'\n`)
  chmodSync(file, 0o755)
  return file
}

t.test('the fontconfig pattern: the style\'s families, then DejaVu Sans and sans-serif unless they end generic; slant and weight as Pango asks', async (t) => {
  t.same(familiesOf('Liberation Serif'), ['Liberation Serif', 'DejaVu Sans', 'sans-serif'])
  t.same(familiesOf(' "Noto Sans" , \'Liberation Sans\',serif'), ['Noto Sans', 'Liberation Sans', 'serif'], 'a CSS list, quotes dropped')
  t.same(familiesOf('Monospaced'), ['monospace'], 'Java\'s logical names (GeoServer styles) as fontconfig\'s generic families; no fallback after one')
  t.same(familiesOf('Liberation Serif, serif'), ['Liberation Serif', 'serif'])
  t.same(familiesOf('DialogInput,Dialog, Foo'), ['monospace', 'sans-serif', 'Foo', 'DejaVu Sans', 'sans-serif'])
  t.equal(fontPattern(font('Liberation Serif')), 'Liberation Serif,DejaVu Sans,sans\\-serif:slant=roman:weight=regular')
  t.equal(fontPattern(font('a-b:c', 10, 'italic', 'bold')), 'a\\-b\\:c,DejaVu Sans,sans\\-serif:slant=italic:weight=bold', 'fontconfig\'s special characters escaped')
  t.match(fontPattern(font('x', 10, 'oblique')), /slant=oblique/)
})

t.test('the face fontconfig draws a font with: the family\'s own file, its aliases, the fallback', async (t) => {
  const faces = createFontFaces()
  const file = (family: string, style: Style = 'normal', weight: 'normal' | 'bold' = 'normal') => path.basename(faces.face(font(family, 10, style, weight))?.file ?? '')
  t.equal(file('Liberation Serif'), 'LiberationSerif-Regular.ttf#0')
  t.equal(file('Liberation Serif', 'italic', 'bold'), 'LiberationSerif-BoldItalic.ttf#0')
  t.equal(file('Liberation Sans', 'normal', 'bold'), 'LiberationSans-Bold.ttf#0')
  t.equal(file('DejaVu Sans', 'normal', 'bold'), 'DejaVuSans-Bold.ttf#0')
  t.equal(file('Arial'), 'LiberationSans-Regular.ttf#0', 'Arial: its metric twin, fontconfig\'s alias')
  t.equal(file('No Such Family'), 'DejaVuSans.ttf#0', 'a family not installed: the fallback DejaVu Sans, as librsvg draws it')
  t.equal(file('Monospaced'), 'DejaVuSansMono.ttf#0', 'Java\'s Monospaced: fontconfig\'s monospace')
  t.equal(file('serif'), 'DejaVuSerif.ttf#0')
  t.equal(faces.face(font('Arial')), faces.face(font('Liberation Sans')), 'one file read once')
})

t.test('widths: laid out with kerning, per family, style and weight, proportional to the size', async (t) => {
  const serif = textWidth('Wavy Avenue', font('Liberation Serif'))
  t.ok(Math.abs(serif - 110.76) < 0.01, `Liberation Serif at 20 px: ${serif}`)
  t.ok(Math.abs(textWidth('Wavy Avenue', font('Liberation Serif', 10)) - serif / 2) < 1e-9, 'half the size, half the width')
  t.not(textWidth('Wavy Avenue', font('Liberation Sans')), serif)
  t.ok(textWidth('Wavy Avenue', font('Liberation Serif', 20, 'normal', 'bold')) > serif, 'bold is wider')
  t.ok(textWidth('AV', font('Liberation Serif')) < textWidth('A', font('Liberation Serif')) + textWidth('V', font('Liberation Serif')) - 1, 'A and V kerned together')
  t.equal(textWidth('iiii', font('Liberation Mono')), textWidth('MMMM', font('Liberation Mono')), 'a monospaced face')
  t.equal(textWidth('', font('Liberation Serif')), 0)

  // Set glyph by glyph (followLine): one advance per character, kerned with the next, adding up to the width.
  const advances = glyphAdvances('Wavy Avenue', font('Liberation Serif'))
  t.equal(advances.length, 11)
  t.ok(Math.abs(sum(advances) - serif) < 1e-9)
  t.ok(glyphAdvances('AV', font('Liberation Serif'))[0] < glyphAdvances('A', font('Liberation Serif'))[0], 'the A before a V moves it closer')
  t.same(glyphAdvances('fi', font('Liberation Serif')).length, 2, 'no ligature when each glyph is drawn alone')
})

t.test('characters the face lacks: DejaVu Sans\' advance where it has them (librsvg\'s fallback), else the table\'s', async (t) => {
  // Liberation Serif has no check mark; DejaVu Sans has.
  const mixed = textWidth('a✓b', font('Liberation Serif'))
  t.ok(Math.abs(mixed - (textWidth('a', font('Liberation Serif')) + textWidth('✓', font('DejaVu Sans')) + textWidth('b', font('Liberation Serif')))) < 1e-9)
  t.same(glyphAdvances('a✓b', font('Liberation Serif')).map((x) => Math.round(x * 100) / 100), [textWidth('a', font('Liberation Serif')), textWidth('✓', font('DejaVu Sans')), textWidth('b', font('Liberation Serif'))].map((x) => Math.round(x * 100) / 100))
  // Cherokee is in neither: 0.6 em, the table's guess for a character it lacks.
  t.equal(textWidth('Ꭰ', font('Liberation Serif')), 12)
})

t.test('without fontconfig or a font file it reads, the text is measured with DejaVu Sans\' table', async (t) => {
  const table = (text: string, weight: 'normal' | 'bold' = 'normal') => sum([...text].map((c) => GLYPH_WIDTHS[weight][c] * 20))
  const none = createTextMetrics({ faces: createFontFaces({ command: path.join(t.testdir(), 'no-fc-match') }) })
  t.equal(none.textWidth('Wavy Avenue', font('Liberation Serif')), table('Wavy Avenue'))
  t.equal(none.textWidth('Wavy Avenue', font('Liberation Serif', 20, 'normal', 'bold')), table('Wavy Avenue', 'bold'))
  t.same(none.glyphAdvances('AV', font('Liberation Serif')), [GLYPH_WIDTHS.normal.A * 20, GLYPH_WIDTHS.normal.V * 20])
  t.equal(none.textWidth('東京', font('Liberation Serif')), 40, 'a wide character beyond the table: 1 em')

  const notAFont = createTextMetrics({ faces: createFontFaces({ command: matcher(t, `${path.join(t.testdir(), 'fc-match')}\n0\nX`) }) })
  t.equal(notAFont.textWidth('Wavy Avenue', font('Liberation Serif')), table('Wavy Avenue'), 'fontconfig names a file that is no font')
  const nothing = createTextMetrics({ faces: createFontFaces({ command: matcher(t, '') }) })
  t.equal(nothing.textWidth('Wavy Avenue', font('Liberation Serif')), table('Wavy Avenue'), 'fontconfig names no file')
})
