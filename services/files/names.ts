// Names that become file or directory names under the data directory. Anything that could
// address another folder (separators, '..', control characters, fullwidth look-alikes, Windows
// device names, trailing dots or spaces) is refused before any path is built.
import { InvalidName } from '../errors.js'

const NAME = /^[\p{L}\p{N}_][\p{L}\p{N}_.\- ]*$/u
const DEVICE = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i
/**
 * Longest name in UTF-8 bytes: file systems limit a path segment to 255 bytes, and a name gets
 * up to about 40 more on its way to disk (a style's `.sld` and revision, a temp file's
 * `.<name>.<12 hex>.mwtmp`). 128 ASCII characters as before; 64 'ü' (2 bytes each).
 */
export const MAX_NAME_BYTES = 128
/** File names made from a name (a style's `<name>.sld`, a mapping file) may add an extension. */
export const MAX_FILE_NAME_BYTES = MAX_NAME_BYTES + 16

/**
 * The key under which two names are the same: Unicode full case folding after NFC normalisation
 * ('ÄÖ' = 'äö', 'STRAẞE' = 'straße' = 'STRASSE'), as case-insensitive file systems and Unicode
 * default caseless matching see them. Lower, upper, lower: toLowerCase alone leaves 'ß' and
 * 'ẞ' apart and 'ss' different from both. Also the SQL function mw_fold (storage/sqlite/database.ts).
 */
export function foldName (name: string): string {
  return name.normalize('NFC').toLowerCase().toUpperCase().toLowerCase().normalize('NFC')
}

export function isSafeName (value: unknown, maxBytes = MAX_NAME_BYTES): value is string {
  return typeof value === 'string' && NAME.test(value) && !value.includes('..') &&
    !/[. ]$/.test(value) && !DEVICE.test(value) && Buffer.byteLength(value, 'utf8') <= maxBytes
}

export function checkName (value: unknown, what: string, maxBytes = MAX_NAME_BYTES): string {
  if (!isSafeName(value, maxBytes)) {
    const tooLong = typeof value === 'string' && Buffer.byteLength(value, 'utf8') > maxBytes
    // Quoted, cut, and with markup characters escaped: the message is text, but it may be shown in a browser.
    const shown = typeof value === 'string'
      ? JSON.stringify(value.length > 64 ? value.slice(0, 64) + '...' : value).replace(/[<>&]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
      : String(value)
    throw InvalidName(what, tooLong
      ? `${shown} (${Buffer.byteLength(value, 'utf8')} bytes in UTF-8, more than the ${maxBytes} a name may have: names become folder and file names)`
      : shown)
  }
  return value
}
