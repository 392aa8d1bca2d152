// The font file a label is drawn with, opened to measure its text. librsvg (through Pango) asks
// fontconfig for the label's `font-family="<family>, DejaVu Sans, sans-serif"` (labels.ts) with its
// style and weight; `fc-match` with the same families, slant and weight names the same file, read
// here with fontkit. A family that is not installed resolves as fontconfig resolves it for librsvg:
// an alias (Arial is drawn with Liberation Sans where fonts-liberation2 is installed) or the
// fallback DejaVu Sans.
// fc-match runs synchronously once per font key and thread, and each file is read once per thread:
// the metrics are taken in the render workers (draw-vector.ts), never on the event loop's thread.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Font } from 'fontkit'
import type { TextSymbolizer } from './vector-style.js'

export type FontKey = Pick<TextSymbolizer['font'], 'family' | 'style' | 'weight'>

/** The family labels fall back to (labels.ts names it after the style's family). */
export const FALLBACK_FAMILY = 'DejaVu Sans'

/**
 * Java's logical font names, which GeoServer styles use (GeoTools draws with Java2D), as the generic
 * families fontconfig knows ("Serif" it already matches as "serif").
 */
const JAVA_LOGICAL: Record<string, string> = { sansserif: 'sans-serif', dialog: 'sans-serif', monospaced: 'monospace', dialoginput: 'monospace' }

const GENERIC = new Set(['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui'])

/**
 * The families a label's text is drawn with, in order: its own (a CSS list, quotes dropped), then
 * the fallbacks, unless its list ends with a generic family: fontconfig would prefer a named
 * fallback to the generic one's fonts ("monospace, DejaVu Sans" draws DejaVu Sans).
 */
export function familiesOf (family: string): string[] {
  const own = family.split(',').map((f) => f.trim().replace(/^(['"])(.*)\1$/, '$2').trim()).filter((f) => f !== '')
    .map((f) => JAVA_LOGICAL[f.toLowerCase()] ?? f)
  return own.length > 0 && GENERIC.has(own[own.length - 1].toLowerCase()) ? own : [...own, FALLBACK_FAMILY, 'sans-serif']
}

/** fontconfig's pattern for a font: its families (with fontconfig's escapes), slant and weight as Pango maps CSS's. */
export function fontPattern (font: FontKey): string {
  const families = familiesOf(font.family).map((f) => f.replace(/[\\,:-]/g, '\\$&')).join(',')
  const slant = font.style === 'italic' ? 'italic' : font.style === 'oblique' ? 'oblique' : 'roman'
  return `${families}:slant=${slant}:weight=${font.weight === 'bold' ? 'bold' : 'regular'}`
}

export interface FontFace {
  /** The font file (and face of a collection) fontconfig chose. */
  file: string
  font: Font
  /** Advances measured with this face, in font units, by text (text-metrics.ts fills it). */
  measured: Map<string, number | number[]>
}

export interface FontFacesOptions {
  /** fontconfig's matcher; only tests name another. */
  command?: string
}

// fontkit loads on the first label measured (a third of a second): threads that draw none never pay it.
let fontkit: typeof import('fontkit') | undefined
const load = () => (fontkit ??= createRequire(import.meta.url)('fontkit') as typeof import('fontkit'))

export function createFontFaces ({ command = 'fc-match' }: FontFacesOptions = {}) {
  const byKey = new Map<string, FontFace | undefined>()
  const byFile = new Map<string, FontFace | undefined>()

  function open (file: string, index: number, postscriptName: string): FontFace | undefined {
    const id = `${file}#${index}`
    if (byFile.has(id)) return byFile.get(id)
    let face: FontFace | undefined
    try {
      // fontkit takes a second argument as a collection's face, but as a variation of a single font.
      const opened = load().create(readFileSync(file))
      const font = 'fonts' in opened ? opened.fonts.find((f) => f.postscriptName === postscriptName) ?? opened.fonts[index] ?? opened.fonts[0] : opened
      // A font fontkit reads but cannot map characters with (a bitmap or Type 1 file) measures nothing.
      if (font && typeof font.layout === 'function' && font.unitsPerEm > 0) face = { file: id, font, measured: new Map() }
    } catch { face = undefined }
    byFile.set(id, face)
    return face
  }

  return {
    /** The face fontconfig draws this font with; undefined without fontconfig or a readable file. */
    face (key: FontKey): FontFace | undefined {
      const k = `${key.family}\n${key.style}\n${key.weight}`
      if (byKey.has(k)) return byKey.get(k)
      let face: FontFace | undefined
      try {
        const out = execFileSync(command, ['-f', '%{file}\n%{index}\n%{postscriptname}', fontPattern(key)], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] })
        const [file, index, postscriptName] = out.split('\n')
        if (file) face = open(file, Number(index) || 0, postscriptName ?? '')
      } catch { face = undefined } // no fontconfig: text-metrics.ts measures with DejaVu Sans' table
      byKey.set(k, face)
      return face
    }
  }
}
export type FontFaces = ReturnType<typeof createFontFaces>
