// Names that become file or directory names under the data directory. Anything that could
// address another folder (separators, '..', control characters, fullwidth look-alikes, Windows
// device names, trailing dots or spaces) is refused before any path is built.
import { InvalidName } from '../errors.js'

const NAME = /^[\p{L}\p{N}_][\p{L}\p{N}_.\- ]{0,127}$/u
const DEVICE = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i

export function isSafeName (value: unknown): value is string {
  return typeof value === 'string' && NAME.test(value) && !value.includes('..') &&
    !/[. ]$/.test(value) && !DEVICE.test(value)
}

export function checkName (value: unknown, what: string): string {
  if (!isSafeName(value)) {
    // Quoted, cut, and with markup characters escaped: the message is text, but it may be shown in a browser.
    const shown = typeof value === 'string'
      ? JSON.stringify(value.length > 64 ? value.slice(0, 64) + '...' : value).replace(/[<>&]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
      : String(value)
    throw InvalidName(what, shown)
  }
  return value
}
