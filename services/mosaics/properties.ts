// Java .properties files (indexer.properties, datastore.properties, regex sidecars): comments
// (# and !), key=value or key:value or key value, backslash escapes and continuation lines.
export function parseProperties (text: string): Map<string, string> {
  const out = new Map<string, string>()
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i].replace(/^\s+/, '')
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < lines.length) {
      line = line.slice(0, -1) + lines[++i].replace(/^\s+/, '')
    }
    let k = 0
    let key = ''
    while (k < line.length) {
      const c = line[k]
      if (c === '\\' && k + 1 < line.length) { key += unescape(line[k + 1]); k += 2; continue }
      if (c === '=' || c === ':' || c === ' ' || c === '\t') break
      key += c
      k++
    }
    while (k < line.length && (line[k] === ' ' || line[k] === '\t')) k++
    if (line[k] === '=' || line[k] === ':') k++
    while (k < line.length && (line[k] === ' ' || line[k] === '\t')) k++
    let value = ''
    for (; k < line.length; k++) {
      const c = line[k]
      if (c === '\\' && k + 1 < line.length) { value += unescape(line[++k]); continue }
      value += c
    }
    out.set(key, value)
  }
  return out
}

function unescape (c: string): string {
  return c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : c === 'f' ? '\f' : c
}
