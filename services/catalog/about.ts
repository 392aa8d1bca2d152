// What {base}/rest/about/manifest and about/status describe, without HTTP: the npm packages installed
// beside mapwarden (read from node_modules' package.json files, asynchronously, once, as GeoServer's
// ManifestLoader reads the jars' manifests once) and the state of mapwarden's own components (GeoServer's
// ModuleStatus: the catalog database, the render pool, the tile cache and, when used, PostgreSQL).
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { InvalidBody } from '../errors.js'

/** One resource of the manifest: a name and its attributes (GeoServer's ManifestModel). */
export interface ManifestResource { name: string, entries: Record<string, string> }

/** GeoServer's ModuleStatus. */
export interface ModuleStatus {
  module: string
  name: string
  component?: string
  version?: string
  isEnabled: boolean
  isAvailable: boolean
  message?: string
}

interface PackageJson { name?: unknown, version?: unknown, license?: unknown, description?: unknown }

async function readPackage (dir: string): Promise<PackageJson | undefined> {
  try { return JSON.parse(await fs.readFile(path.join(dir, 'package.json'), 'utf8')) as PackageJson } catch { return undefined }
}

async function entries (dir: string): Promise<string[]> {
  try { return (await fs.readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory() || d.isSymbolicLink()).map((d) => d.name) } catch { return [] }
}

/**
 * The packages installed under `root`/node_modules: each hoisted package by its name, a copy nested
 * under another package by its path ("a/node_modules/b"), so several versions of one name all show.
 * `direct` names the dependencies package.json declares.
 */
export async function installedPackages (root: string, direct: ReadonlySet<string>): Promise<ManifestResource[]> {
  const out: ManifestResource[] = []
  const visit = async (modules: string, prefix: string, depth: number): Promise<void> => {
    for (const name of (await entries(modules)).sort()) {
      if (name.startsWith('.')) continue
      const dirs = name.startsWith('@') ? (await entries(path.join(modules, name))).sort().map((n) => `${name}/${n}`) : [name]
      for (const pkgName of dirs) {
        const dir = path.join(modules, pkgName)
        const pkg = await readPackage(dir)
        if (!pkg || typeof pkg.version !== 'string') continue
        const e: Record<string, string> = { Version: pkg.version }
        if (typeof pkg.license === 'string') e.License = pkg.license
        if (typeof pkg.description === 'string' && pkg.description !== '') e.Description = pkg.description.slice(0, 300)
        e['Dependency-Type'] = prefix === '' && direct.has(pkgName) ? 'direct' : 'transitive'
        out.push({ name: prefix + pkgName, entries: e })
        if (depth < 4) await visit(path.join(dir, 'node_modules'), `${prefix}${pkgName}/node_modules/`, depth + 1)
      }
    }
  }
  await visit(path.join(root, 'node_modules'), '', 0)
  return out
}

/** A Java-style whole-string regular expression from a query parameter; a bad one is a 400 naming it. */
function wholeMatch (param: string, source: string): RegExp {
  if (source.length > 256) throw InvalidBody(`${param} is longer than 256 characters`)
  try { return new RegExp(`^(?:${source})$`, 'u') } catch (err) {
    throw InvalidBody(`${param} is not a valid regular expression: ${(err as Error).message}`)
  }
}

export interface ManifestFilter { manifest?: string, from?: string, to?: string, key?: string, value?: string }

/**
 * GeoServer's AboutController filters, in its order: `manifest` (a regular expression the resource
 * name matches whole), `from` and `to` (names in that range, both included), then `key` and/or
 * `value` (a resource stays when one of its attributes' names matches key and, with both, its value
 * matches value). Resources are sorted by name.
 */
export function filterManifest (resources: ManifestResource[], f: ManifestFilter): ManifestResource[] {
  let out = [...resources].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  if (f.manifest !== undefined) {
    const re = wholeMatch('manifest', f.manifest)
    out = out.filter((r) => re.test(r.name))
  }
  if (f.from !== undefined && f.to !== undefined) {
    const [from, to] = [f.from, f.to]
    out = out.filter((r) => r.name >= from && r.name <= to)
  }
  const key = f.key !== undefined ? wholeMatch('key', f.key) : undefined
  const value = f.value !== undefined ? wholeMatch('value', f.value) : undefined
  if (key || value) out = out.filter((r) => Object.entries(r.entries).some(([k, v]) => (!key || key.test(k)) && (!value || value.test(v))))
  return out
}

/** mapwarden's own folder (package.json and node_modules): the first one up from this file named mapwarden. */
async function ownPackage (): Promise<{ root: string, pkg: PackageJson & { dependencies?: Record<string, string>, optionalDependencies?: Record<string, string> } }> {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const pkg = await readPackage(dir)
    if (pkg?.name === 'mapwarden') return { root: dir, pkg }
    const up = path.dirname(dir)
    if (up === dir) throw new Error('mapwarden\'s package.json was not found above ' + fileURLToPath(import.meta.url))
    dir = up
  }
}

export interface AboutDeps {
  backend: 'SQLite' | 'PostgreSQL'
  ping (): Promise<void>
  databaseVersion (): Promise<string>
  renderThreads: number
  renderQueue: () => { running: number, interactive: number, seed: number }
  seedTasks: () => Promise<{ pending: number, running: number }>
  /** Where mapwarden's own package.json is read (default: above this file); a test's seam. */
  ownPackage?: typeof ownPackage
}

export function createAbout (deps: AboutDeps) {
  let manifest: Promise<ManifestResource[]> | undefined
  let own: ReturnType<typeof ownPackage> | undefined
  /** The package, read once; a failed read is not kept, so the next request reads it again. */
  const ownOnce = () => (own ??= (deps.ownPackage ?? ownPackage)().catch((err) => { own = undefined; throw err }))
  const versionOf = async () => String((await ownOnce()).pkg.version)
  const load = async (): Promise<ManifestResource[]> => {
    const { root, pkg } = await ownOnce()
    const direct = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})])
    const self: ManifestResource = { name: 'mapwarden', entries: { Version: String(pkg.version), GeoServerModule: 'core', 'Implementation-Title': 'mapwarden' } }
    return [self, ...await installedPackages(root, direct)]
  }
  return {
    /** The resources of about/manifest, filtered as GeoServer does; read once (the install does not change while running). */
    async manifest (f: ManifestFilter): Promise<ManifestResource[]> {
      manifest ??= load().catch((err) => { manifest = undefined; throw err })
      return filterManifest(await manifest, f)
    },
    /** about/status: one entry per component of mapwarden, measured now. */
    async status (): Promise<ModuleStatus[]> {
      const version = await versionOf()
      let dbError: string | undefined
      let dbVersion: string | undefined
      try {
        await deps.ping()
        dbVersion = await deps.databaseVersion()
      } catch (err) { dbError = (err as { code?: string }).code ?? 'no answer' } // never the connection string
      const q = deps.renderQueue()
      let tasks: { pending: number, running: number } | undefined
      try { tasks = await deps.seedTasks() } catch {}
      const list: ModuleStatus[] = [
        {
          module: 'mw-catalog',
          name: 'mapwarden catalog',
          component: `${deps.backend} catalog`,
          version,
          isEnabled: true,
          isAvailable: dbError === undefined,
          message: dbError === undefined
            ? deps.backend === 'SQLite' ? `Embedded SQLite ${dbVersion} catalog in the data directory` : 'Catalog in PostgreSQL, shared by the instances on this database'
            : `The catalog database does not answer: ${dbError}`
        },
        {
          module: 'mw-render',
          name: 'mapwarden render pool',
          component: 'Render worker threads',
          version,
          isEnabled: true,
          isAvailable: true,
          message: `${deps.renderThreads} render threads; ${q.running} renders running, ${q.interactive} on-demand and ${q.seed} seeding renders waiting`
        },
        {
          module: 'mw-tilecache',
          name: 'mapwarden tile cache',
          component: 'Tile cache (WMTS, TMS, tiled WMS, seeding)',
          version,
          isEnabled: true,
          isAvailable: tasks !== undefined,
          message: tasks !== undefined ? `Blob store in the data directory; seed tasks: ${tasks.running} running, ${tasks.pending} pending` : 'The seed task records cannot be read'
        }
      ]
      if (deps.backend === 'PostgreSQL') {
        list.push({
          module: 'mw-postgresql',
          name: 'PostgreSQL',
          component: 'PostgreSQL server',
          version: dbVersion,
          isEnabled: true,
          isAvailable: dbError === undefined,
          message: dbError === undefined ? `PostgreSQL ${dbVersion}` : `PostgreSQL does not answer: ${dbError}`
        })
      }
      return list
    }
  }
}
export type About = ReturnType<typeof createAbout>
