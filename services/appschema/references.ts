// Where a reference in a mapping file or schema points. Only two places can be read: the upload
// itself (relative paths that stay inside it) and the schema cache under the data directory
// (`app-schema-cache/<host>/<path>`, GeoTools' layout). Nothing is ever fetched from the network,
// absolute file paths and other URL schemes are refused, so a mapping cannot read /etc/passwd or
// make the server call a private address.
import fs from 'node:fs/promises'
import path from 'node:path'

export type Loc =
  | { kind: 'upload', rel: string }
  | { kind: 'cache', url: string }

export interface Resolved { loc?: Loc, problem?: string }

export function locKey (loc: Loc): string {
  return loc.kind === 'upload' ? `upload:${loc.rel}` : `cache:${loc.url}`
}

export function showLoc (loc: Loc): string {
  return loc.kind === 'upload' ? loc.rel : loc.url
}

const HTTP = /^https?:\/\//i
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/

/** An OASIS catalog's rewrite rules, reduced to "this URI prefix maps to that upload path". */
export interface CatalogRules {
  exact: Map<string, Loc>
  prefixes: Array<{ from: string, to: Loc }>
}

export function emptyCatalog (): CatalogRules { return { exact: new Map(), prefixes: [] } }

function viaCatalog (uri: string, catalog: CatalogRules | undefined): Loc | undefined {
  if (!catalog) return undefined
  const hit = catalog.exact.get(uri)
  if (hit) return hit
  let best: { from: string, to: Loc } | undefined
  for (const p of catalog.prefixes) if (uri.startsWith(p.from) && (!best || p.from.length > best.from.length)) best = p
  if (!best) return undefined
  const rest = uri.slice(best.from.length)
  if (best.to.kind === 'upload') return joinUpload(best.to.rel, rest)
  return { kind: 'cache', url: best.to.url + rest }
}

function joinUpload (baseDir: string, rel: string): Loc | undefined {
  const joined = path.posix.normalize(path.posix.join(baseDir, rel))
  if (joined === '..' || joined.startsWith('../') || path.posix.isAbsolute(joined)) return undefined
  return { kind: 'upload', rel: joined.replace(/\/$/, '') || '.' }
}

/**
 * Resolves `ref` as written in the document at `from`. Relative references of an uploaded file
 * stay in the upload; relative references of a cached schema stay in the cache (resolved against
 * its URL, as a schema loader would); absolute http(s) URIs go through the catalog, then the cache.
 */
export function resolveRef (ref: string, from: Loc, catalog?: CatalogRules): Resolved {
  const value = ref.trim()
  if (value === '') return { problem: 'empty reference' }
  if (value.includes('\\')) return { problem: `${JSON.stringify(value)} uses backslashes; only relative paths inside the upload are allowed` }
  if (/[\u0000-\u001f]/.test(value)) return { problem: 'control character in reference' }
  if (HTTP.test(value)) {
    const mapped = viaCatalog(value, catalog)
    if (mapped) return { loc: mapped }
    return cacheLoc(value)
  }
  let rel = value
  if (/^file:/i.test(value)) {
    rel = value.slice(5)
    if (rel.startsWith('//')) return { problem: `${JSON.stringify(value)} is an absolute file URL; only relative paths inside the upload are allowed` }
    try { rel = decodeURIComponent(rel) } catch { return { problem: `${JSON.stringify(value)} is not a valid file URL` } }
  } else if (SCHEME.test(value)) {
    return { problem: `${JSON.stringify(value)} uses an unsupported URL scheme; only relative paths inside the upload and cached http(s) schemas are allowed` }
  }
  if (rel.startsWith('/') || /^[A-Za-z]:/.test(rel)) {
    return { problem: `${JSON.stringify(value)} is an absolute path; only relative paths inside the upload are allowed` }
  }
  if (from.kind === 'cache') {
    let url: string
    try { url = new URL(rel, from.url).href } catch { return { problem: `${JSON.stringify(value)} is not a valid reference` } }
    return cacheLoc(url)
  }
  const loc = joinUpload(path.posix.dirname(from.rel), rel)
  if (!loc) return { problem: `${JSON.stringify(value)} points outside the upload` }
  return { loc }
}

function cacheLoc (uri: string): Resolved {
  let url: URL
  try { url = new URL(uri) } catch { return { problem: `${JSON.stringify(uri)} is not a valid URL` } }
  if (url.username || url.password) return { problem: `${JSON.stringify(uri)} carries credentials` }
  url.hash = ''
  return { loc: { kind: 'cache', url: url.href } }
}

/** The file behind a cached URL: <cacheDir>/<host>/<path>, or undefined if it would leave the cache. */
export function cachePath (cacheDir: string, urlText: string): string | undefined {
  const url = new URL(urlText)
  if (url.search) return undefined
  const host = url.hostname.toLowerCase()
  if (!/^[a-z0-9.-]+$/.test(host) || host.includes('..')) return undefined
  let segments: string[]
  try { segments = url.pathname.split('/').filter((s) => s !== '').map(decodeURIComponent) } catch { return undefined }
  if (segments.length === 0 || segments.some((s) => s === '.' || s === '..' || s.includes('/') || s.includes('\\') || s.includes('\0'))) return undefined
  const file = path.join(cacheDir, host, ...segments)
  return file.startsWith(cacheDir + path.sep) ? file : undefined
}

export interface ReadResult { text?: string, problem?: string }

/** Reads a located file; a missing file is a problem naming the reference, never an exception. */
export async function readLoc (loc: Loc, uploadRoot: string, cacheDir: string): Promise<ReadResult> {
  if (loc.kind === 'upload') {
    const file = path.join(uploadRoot, loc.rel)
    const st = await fs.lstat(file).catch(() => undefined)
    if (!st || !st.isFile()) return { problem: `${loc.rel} is not a file of the upload` }
    return { text: await fs.readFile(file, 'utf8') }
  }
  const file = cachePath(cacheDir, loc.url)
  if (!file) return { problem: `remote schema ${loc.url} cannot be mapped into the schema cache` }
  const st = await fs.stat(file).catch(() => undefined)
  if (!st || !st.isFile()) {
    const rel = path.relative(path.dirname(cacheDir), file).split(path.sep).join('/')
    return { problem: `remote schema ${loc.url} is not in the schema cache (${rel}) and is never fetched from the network` }
  }
  return { text: await fs.readFile(file, 'utf8') }
}
