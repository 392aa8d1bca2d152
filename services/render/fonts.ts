// The font families the renderer can draw text with, for {base}/rest/fonts. Text is drawn as SVG by
// sharp (libvips and librsvg), which find fonts through fontconfig: its own `fc-list : family` is the
// list, run asynchronously (never on the event loop's time), cached for a few minutes. A family with
// several names (fontconfig's "DejaVu Sans,DejaVu Sans Condensed") gives each; sorted, without repeats.
import { execFile } from 'node:child_process'

export interface FontListOptions {
  /** fontconfig's lister; only tests name another. */
  command?: string
  /** How long one listing is served before fontconfig is asked again. */
  cacheMs?: number
  onError?: (err: Error) => void
}

export function parseFamilies (out: string): string[] {
  const names = new Set<string>()
  for (const line of out.split('\n')) {
    // fc-list escapes '-', ':' and ',' inside a name with a backslash.
    for (const part of line.split(/(?<!\\),/)) {
      const name = part.replace(/\\([-:,\\])/g, '$1').trim()
      if (name !== '') names.add(name)
    }
  }
  return [...names].sort((a, b) => a.localeCompare(b, 'en'))
}

export function createFontList ({ command = 'fc-list', cacheMs = 5 * 60_000, onError = () => {} }: FontListOptions = {}) {
  let cached: { at: number, families: Promise<string[]> } | undefined
  const list = () => new Promise<string[]>((resolve) => {
    execFile(command, [':', 'family'], { timeout: 30_000, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (err, stdout) => {
      // Without fontconfig's lister (or when it fails) the renderer has no font to name: an empty list.
      if (err) { onError(err); resolve([]); return }
      resolve(parseFamilies(stdout))
    })
  })
  return {
    /** The families, from the cache when it is recent. */
    families (): Promise<string[]> {
      const now = Date.now()
      if (!cached || now - cached.at > cacheMs) cached = { at: now, families: list() }
      return cached.families
    },
    /** Forgets the cached listing (POST rest/reset), so fonts installed meanwhile show. */
    forget (): void { cached = undefined }
  }
}
export type FontList = ReturnType<typeof createFontList>
