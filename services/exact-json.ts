// JSON with exact integers past 2^53: bigint values are written as plain JSON numbers with every
// digit (JSON.stringify refuses them; Number() would round 18053587901014829 to ...828), and read
// back as bigint where a number's text has more digits than a double keeps.

const MARK = '\u0000bigint:'

/** JSON.stringify that writes bigint values as exact JSON numbers. */
export function stringifyExact (value: unknown): string {
  const text = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? MARK + v.toString() : v))
  return text.includes('\\u0000bigint:') ? text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1') : text
}

/** JSON.parse that reads integers beyond Number.MAX_SAFE_INTEGER as bigint (numbers, not digits in strings). */
export function parseExact (text: string): unknown {
  let out = ''
  let from = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') { inString = true; continue }
    if (c !== '-' && (c < '0' || c > '9')) continue
    let j = i + 1
    while (j < text.length && /[0-9.eE+-]/.test(text[j])) j++
    const token = text.slice(i, j)
    if (/^-?\d{16,}$/.test(token) && !Number.isSafeInteger(Number(token))) {
      out += text.slice(from, i) + `"\\u0000bigint:${token}"`
      from = j
    }
    i = j - 1
  }
  const marked = out + text.slice(from)
  return JSON.parse(marked, (_k, v) => (typeof v === 'string' && v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v))
}

/** A count as a number while that is exact, else a bigint. */
export function exactCount (n: bigint): number | bigint {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n
}
