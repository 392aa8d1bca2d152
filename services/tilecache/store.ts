// What the tile cache keeps in the catalog database: the per-layer tile settings (layer-settings.ts)
// and the tile sets and drop marks of tile-invalidation.ts. Every method is one unit of work (one
// transaction in its implementation); services/seed/sqlite-store.ts and pg-store.ts implement them
// beside the seed task records, in the same tables' migrations.
import type { BBox } from './grid-sets.js'
import type { TileLayerSettings } from './layer-settings.js'
import type { ParameterSet } from './parameters.js'

/** The settings of the layers that changed one from its default. */
export interface TileSettingsStore {
  all (): Promise<Array<{ workspace: string, name: string, settings: TileLayerSettings }>>
  put (workspace: string, name: string, settings: TileLayerSettings): Promise<void>
  remove (workspace: string, name: string): Promise<void>
}

/** A drop of a layer's tiles older than `before`: one parameter set, or all; one area, or all. */
export interface DropMark { layer: string, parameterId?: string, area?: BBox, before: number, reason: string }

export interface TileSetStore {
  /** Records the parameters of a non-default tile set (kept as first recorded). */
  addSet (layer: string, parameterId: string, parameters: ParameterSet): Promise<void>
  /** The recorded non-default sets of each layer named. */
  sets (layers: string[]): Promise<Array<{ layer: string, parameterId: string, parameters: ParameterSet }>>
  removeSets (layer: string): Promise<void>
  /** Records a drop in force; returns its id. */
  addMark (mark: DropMark): Promise<number>
  clearMark (id: number): Promise<void>
  /** The drops still in force, oldest first. */
  marks (): Promise<Array<DropMark & { id: number }>>
}

/** A file blob store of GWC's REST (blob-store-registry.ts), as GWC's FileBlobStoreInfo holds it. */
export interface FileBlobStoreInfo {
  id: string
  /** Marked GWC's default: the store of every layer that names none (one at a time). */
  default: boolean
  enabled: boolean
  baseDirectory: string
  fileSystemBlockSize: number
}

/** The file blob stores; every change is announced to the other instances ('blobstores'). */
export interface BlobStoreStore {
  all (): Promise<FileBlobStoreInfo[]>
  /** Creates or replaces one (a default one clears the mark of the others, in the same unit); true when created. */
  put (info: FileBlobStoreInfo): Promise<boolean>
  /** Removes one unless a layer's tile settings name it: `removed` false when there was none, `usedBy` the layers that keep it. */
  remove (id: string): Promise<{ removed: boolean, usedBy: string[] }>
}

/** The custom grid sets (grid-set-registry.ts), each as the JSON of its GridSetDefinition. */
export interface GridSetStore {
  all (): Promise<Array<{ name: string, body: string }>>
  /** Creates or replaces one; true when it was created. Announced to the other instances. */
  put (name: string, body: string): Promise<boolean>
  /** False when there was none of that name. Announced to the other instances. */
  remove (name: string): Promise<boolean>
}
