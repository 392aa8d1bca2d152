// The style catalog's store: one row per style, the layer references to styles it rewrites when a
// style is renamed, moved or deleted, and the recorded file intents (files that must not outlive a
// crash unless a style points to them). Each write method is one unit of work (one transaction in
// sqlite-store.ts; a PostgreSQL implementation has the same methods).
export interface StyleRow {
  id: number
  /** undefined for a global style. */
  workspace?: string
  name: string
  format: string
  languageVersion: string
  filename: string
  /** The SLD file that is live now, in the style's folder; undefined before content is PUT. */
  file?: string
  revision: number
  images: StyleImage[]
  createdAt: string
  modifiedAt: string
}

/**
 * An image of a style package: the name its SLD uses, and the file (relative to the style folder)
 * that holds its bytes. Rows written before images could share a name hold plain names (file = name).
 */
export interface StyleImage { name: string, file: string }

export interface LayerRef { workspace: string, name: string, defaultStyle?: string, styles: string[] }

/** A layer's reference to a style: 'ws:name' for a workspace style, 'name' for a global one. */
export function styleRef (s: { workspace?: string, name: string }): string {
  return s.workspace ? `${s.workspace}:${s.name}` : s.name
}

/** What a switch of rows writes with it: the layers whose style references change, the intents
 *  it settles (ids to clear) and the files it leaves stale (recorded as new intents). */
export interface StyleSwitch {
  layers?: LayerRef[]
  settled?: number[]
  stale?: { workspace?: string, files: string[], backupTo?: string }
}

export type NewStyleRow = Omit<StyleRow, 'id' | 'createdAt' | 'modifiedAt'>

export interface StyleStore {
  workspaceExists (ws: string): Promise<boolean>
  /** Names of the global styles (workspace undefined) or of one workspace's styles, sorted. */
  names (workspace?: string): Promise<string[]>
  get (workspace: string | undefined, name: string): Promise<StyleRow | undefined>
  /** A style whose name equals `name` ignoring (ASCII) case. */
  getFolded (workspace: string | undefined, name: string): Promise<StyleRow | undefined>
  /** A style whose file name equals `filename` ignoring (ASCII) case. */
  byFilenameFolded (workspace: string | undefined, filename: string): Promise<StyleRow | undefined>
  /** Ids of the styles of a folder whose images include the file. */
  imageUsers (workspace: string | undefined, file: string): Promise<number[]>
  /** Layers whose default or alternate styles contain one of two reference strings. */
  layersNaming (a: string, b: string): Promise<LayerRef[]>
  /**
   * Inserts a style and clears the intents its files were recorded under. Refuses (StyleExists,
   * then StyleResourceExists) a name or file name equal ignoring case to another style's in the
   * folder, also when another node inserts it at the same time: one of the two wins.
   */
  insert (s: NewStyleRow, settled?: number[]): Promise<number>
  /**
   * Replaces a style's row, with what the switch writes; returns the ids of the stale-file intents.
   * Refuses a name or file name taken in the (new) folder as insert does.
   */
  update (s: StyleRow, change?: StyleSwitch): Promise<number[]>
  /** Deletes a style's row, with what the switch writes; returns the ids of the stale-file intents. */
  remove (id: number, change?: StyleSwitch): Promise<number[]>
  /** Records files that must not outlive a crash unless a style points to them (ids to clear). */
  addIntents (workspace: string | undefined, files: string[], backupTo?: string): Promise<number[]>
  clearIntents (ids: number[]): Promise<void>
  intents (): Promise<Array<{ id: number, workspace?: string, file: string, backupTo?: string }>>
  /** Whether a style in the folder points to the file (its live SLD or one of its images). */
  referenced (workspace: string | undefined, file: string): Promise<boolean>
}
