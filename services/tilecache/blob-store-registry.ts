// GeoWebCache's file blob stores (BlobStoreAggregator, CompositeBlobStore) and which one holds each
// layer's tiles. Kept in the catalog database (blob_stores, and tile_layer_settings.blob_store_id for
// the layers), read once into memory and written through the store, as grid-set-registry.ts; another
// instance's change arrives as 'blobstores' on the change bus: reload().
// - A layer whose settings name no store uses the store marked default, else GWC's implicit default
//   (CompositeBlobStore's _DEFAULT_STORE_): the built-in tile cache under the data directory. One
//   store is marked default at a time (a new default clears the old mark); the default cannot be
//   disabled or removed (GWC's "The default blob store can't be disabled/removed").
// - A baseDirectory must be absolute, without '..', under one of MAPWARDEN_BLOBSTORE_ROOTS (also
//   after its symbolic links are resolved: the lexical check first, so nothing outside is looked
//   at), and must neither hold nor lie in the data directory or another store's directory (two
//   stores would share tiles; a workspace removal would reach the catalog's files). It is made when
//   missing, as GWC's FileBlobStore does.
import fs from 'node:fs'
import path from 'node:path'
import { BlobStoreDefaultRemoved, BlobStoreInUse, BlobStoreInvalid, BlobStoreNotFound, BlobStoreOutsideRoots } from '../errors.js'
import { createKeyedQueue } from '../keyed-queue.js'
import { isUnder, realRoots } from '../mosaics/mosaic-files.js'
import type { BlobStoreStore, FileBlobStoreInfo } from './store.js'
import type { TileSettings } from './layer-settings.js'

/** CompositeBlobStore.DEFAULT_STORE_DEFAULT_ID: reserved, never a configured store's id. */
export const IMPLICIT_DEFAULT_ID = '_DEFAULT_STORE_'
const ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/
const FIELDS = ['@default', 'default', 'id', 'enabled', 'baseDirectory', 'fileSystemBlockSize']

const text = (v: unknown): string | undefined => typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined
function bool (field: string, v: unknown, dflt: boolean): boolean {
  if (v === undefined || v === null || v === '') return dflt
  const s = text(v)
  if (s !== 'true' && s !== 'false') throw BlobStoreInvalid(field, JSON.stringify(v), 'is not true or false')
  return s === 'true'
}

/** A FileBlobStore body (XML or JSON, GWC's FileBlobStoreInfo) for the store `id` of the URL; the directory is checked by `put`. */
export function parseFileBlobStore (id: string, body: Record<string, unknown>): FileBlobStoreInfo {
  if (!ID.test(id)) throw BlobStoreInvalid('id', JSON.stringify(id.slice(0, 130)), 'ids are 1-128 letters, digits, _ . - (they name the store in layers\' blobStoreId)')
  if (id === IMPLICIT_DEFAULT_ID) throw BlobStoreInvalid('id', id, 'is a reserved identifier (GWC\'s implicit default store)')
  for (const k of Object.keys(body)) if (!FIELDS.includes(k)) throw BlobStoreInvalid(k, '', `not a field of a FileBlobStore; its fields are default (an attribute), id, enabled, baseDirectory, fileSystemBlockSize (only file blob stores are supported)`)
  const bodyId = text(body.id)
  if (bodyId !== undefined && bodyId !== id) throw BlobStoreInvalid('id', JSON.stringify(bodyId), `is not ${id}, the store of the URL (a store is renamed by creating the new one)`)
  const dir = text(body.baseDirectory)
  if (!dir) throw BlobStoreInvalid('baseDirectory', '', 'is required: the directory of the store\'s tiles')
  const block = text(body.fileSystemBlockSize) ?? '4096'
  if (!/^\d{1,7}$/.test(block) || Number(block) < 1 || Number(block) > 1_048_576) throw BlobStoreInvalid('fileSystemBlockSize', JSON.stringify(block), 'is not a block size in bytes (1 to 1048576)')
  return {
    id,
    default: bool('default', body['@default'] ?? body.default, false),
    enabled: bool('enabled', body.enabled, true),
    baseDirectory: dir,
    fileSystemBlockSize: Number(block)
  }
}

const overlaps = (a: string, b: string) => isUnder(a, b) || isUnder(b, a)

/**
 * The directory of a new or changed store: absolute, no '..', lexically and really under a root,
 * overlapping neither the data directory nor another store. Returns the lexical path to keep.
 */
export async function checkBaseDirectory (dir: string, o: { roots: string[], dataDir: string, others: string[] }): Promise<string> {
  const shown = JSON.stringify(dir.slice(0, 200))
  if (/[\u0000-\u001f]/.test(dir) || dir.length > 4096) throw BlobStoreInvalid('baseDirectory', shown, 'holds a control character or is too long')
  if (!path.isAbsolute(dir)) throw BlobStoreInvalid('baseDirectory', shown, 'must be an absolute path')
  const lexical = path.resolve(dir)
  // The lexical check comes first so that nothing outside the roots is even looked at.
  if (!o.roots.some((r) => isUnder(path.resolve(r), lexical))) throw BlobStoreOutsideRoots(shown, o.roots.length ? 'it is outside them' : 'none are configured')
  if (dir.split(/[\\/]/).includes('..')) throw BlobStoreInvalid('baseDirectory', shown, "'..' segments are not allowed")
  // The deepest part that exists, resolved: a symbolic link out of the roots is refused before anything is made.
  let existing = lexical
  for (;;) {
    try { await fs.promises.lstat(existing); break } catch { existing = path.dirname(existing) }
  }
  const real = path.join(await fs.promises.realpath(existing), path.relative(existing, lexical))
  const allowed = await realRoots(o.roots)
  if (!allowed.some((r) => isUnder(r, real))) throw BlobStoreOutsideRoots(shown, 'it leaves them through a symbolic link')
  const dataDir = await fs.promises.realpath(o.dataDir).catch(() => path.resolve(o.dataDir))
  if (overlaps(dataDir, real) || overlaps(path.resolve(o.dataDir), lexical)) throw BlobStoreInvalid('baseDirectory', shown, 'overlaps the data directory (the built-in tile cache and the catalog live there)')
  for (const other of o.others) {
    const otherReal = await fs.promises.realpath(other).catch(() => path.resolve(other))
    if (overlaps(otherReal, real) || overlaps(path.resolve(other), lexical)) throw BlobStoreInvalid('baseDirectory', shown, `overlaps the directory of another blob store (${other})`)
  }
  return lexical
}

export interface BlobStoreRegistryDeps {
  store: BlobStoreStore
  /** The per-layer settings naming a store (layer-settings.ts). */
  settings?: Pick<TileSettings, 'get'>
  dataDir: string
  /** The built-in tile cache (GWC's implicit default store). */
  builtInRoot: string
  /** MAPWARDEN_BLOBSTORE_ROOTS. */
  roots: string[]
}

export async function loadBlobStores (deps: BlobStoreRegistryDeps) {
  let stores = new Map<string, FileBlobStoreInfo>()
  const read = async () => new Map((await deps.store.all()).map((s) => [s.id, s]))
  stores = await read()
  const serialized = createKeyedQueue()
  const oneAtATime = <T>(fn: () => Promise<T>): Promise<T> => serialized('blobstores', fn)
  const marked = (): FileBlobStoreInfo | undefined => [...stores.values()].find((s) => s.default)

  /** The store holding a layer's tiles ('ws:name'; a global group has no ':' and no settings): undefined is the built-in one. */
  function storeOf (layer: string): FileBlobStoreInfo | undefined {
    const i = layer.indexOf(':')
    const id = i > 0 ? deps.settings?.get(layer.slice(0, i), layer.slice(i + 1)).blobStoreId : undefined
    return (id !== undefined ? stores.get(id) : undefined) ?? marked()
  }

  return {
    /** The configured stores, by id (GWC lists its configured ones; the implicit default is not one). */
    list: (): FileBlobStoreInfo[] => [...stores.values()].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    get (id: string, action = 'get'): FileBlobStoreInfo {
      const s = stores.get(id)
      if (!s) throw BlobStoreNotFound(action, id)
      return { ...s }
    },
    has: (id: string): boolean => stores.has(id),
    storeOf,
    /** The directory of a layer's tiles. */
    rootOf: (layer: string): string => storeOf(layer)?.baseDirectory ?? deps.builtInRoot,
    /** Every directory tiles may be in: the built-in one first. */
    roots: (): string[] => [deps.builtInRoot, ...[...stores.values()].map((s) => s.baseDirectory)],

    /** PUT blobstores/<id>: validated whole, its directory made, stored, then in force; true when created. */
    put: (info: FileBlobStoreInfo): Promise<boolean> => oneAtATime(async () => {
      const current = stores.get(info.id)
      const others = [...stores.values()].filter((s) => s.id !== info.id).map((s) => s.baseDirectory)
      // Checked again when unchanged too: the roots may have narrowed since it was made.
      const baseDirectory = await checkBaseDirectory(info.baseDirectory, { roots: deps.roots, dataDir: deps.dataDir, others })
      if (info.default && !info.enabled) throw BlobStoreInvalid('enabled', 'false', `the default blob store can't be disabled: ${info.id}`)
      if (current?.default && !info.default) throw BlobStoreInvalid('default', 'false', `${info.id} is the default blob store: mark another one default instead`)
      await fs.promises.mkdir(baseDirectory, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
        throw BlobStoreInvalid('baseDirectory', JSON.stringify(baseDirectory), `cannot be made (${err.code ?? 'error'})`)
      })
      // Made: resolved again, so a link raced into its place is still refused.
      const real = await fs.promises.realpath(baseDirectory)
      if (!(await realRoots(deps.roots)).some((r) => isUnder(r, real))) throw BlobStoreOutsideRoots(JSON.stringify(baseDirectory), 'it leaves them through a symbolic link')
      const next = { ...info, baseDirectory }
      const created = await deps.store.put(next)
      if (next.default) for (const s of stores.values()) s.default = false
      stores.set(next.id, next)
      return created
    }),
    /** DELETE blobstores/<id>: refused while it is the default or a layer keeps its tiles in it. */
    remove: (id: string): Promise<void> => oneAtATime(async () => {
      const s = stores.get(id)
      if (!s) throw BlobStoreNotFound('remove', id)
      if (s.default) throw BlobStoreDefaultRemoved(id)
      const { removed, usedBy } = await deps.store.remove(id)
      if (usedBy.length > 0) throw BlobStoreInUse(id, usedBy.join(', '))
      if (!removed) throw BlobStoreNotFound('remove', id)
      stores.delete(id)
    }),
    /** Another instance changed blob stores (a shared database): read them all again. */
    reload: (): Promise<void> => oneAtATime(async () => { stores = await read() })
  }
}

export type BlobStoreRegistry = Awaited<ReturnType<typeof loadBlobStores>>
