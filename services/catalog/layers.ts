// Published layers as the tile cache and the styles area see them: name, type, bounds and styles.
// Coverages and feature types create the rows (mosaics, app-schema); styles assign them.
import type { Db } from '../storage/database.js'

export interface LayerInfo {
  workspace: string
  name: string
  /** <workspace>:<name> */
  qualifiedName: string
  type: 'RASTER' | 'VECTOR'
  store: string
  defaultStyle?: string
  styles: string[]
  enabled: boolean
  /** Lon/lat bounds (EPSG:4326, lon first) when known. */
  bbox?: [number, number, number, number]
  srs?: string
  /** Area-specific resource configuration (dimensions of a mosaic, feature type attributes...). */
  config: Record<string, unknown>
}

export interface LayerStore {
  list (workspace?: string): Promise<LayerInfo[]>
  get (workspace: string, name: string): Promise<LayerInfo | undefined>
  setStyles (workspace: string, name: string, defaultStyle: string | undefined, styles: string[]): Promise<void>
  /** Told after a layer's default or allowed styles changed (the tile cache drops what they drew). */
  onStylesChanged (hook: (before: LayerInfo, after: LayerInfo) => void): void
  /** Areas that keep files per layer (tiles, quota usage) register their clean-up here. */
  onRemoved (hook: (qualifiedName: string) => Promise<void> | void): void
  /** Called by the area that deleted published layers (a store deleted with recurse), after the commit. */
  removed (qualifiedNames: string[]): Promise<void>
}

export function splitLayerName (qualified: string): { workspace: string, name: string } | undefined {
  const i = qualified.indexOf(':')
  if (i <= 0 || i === qualified.length - 1) return undefined
  return { workspace: qualified.slice(0, i), name: qualified.slice(i + 1) }
}

export function createSqliteLayerStore (db: Db): LayerStore {
  const select = `SELECT l.workspace, l.name, l.type, l.default_style, l.styles, l.enabled, r.store, r.bbox, r.srs, r.config
    FROM layers l JOIN resources r ON r.workspace = l.workspace AND r.name = l.name`
  const q = {
    all: db.prepare(`${select} ORDER BY l.workspace, l.name`),
    inWs: db.prepare(`${select} WHERE l.workspace = ? ORDER BY l.name`),
    one: db.prepare(`${select} WHERE l.workspace = ? AND l.name = ?`),
    setStyles: db.prepare('UPDATE layers SET default_style = ?, styles = ? WHERE workspace = ? AND name = ?')
  }
  const toInfo = (r: any): LayerInfo => ({
    workspace: r.workspace,
    name: r.name,
    qualifiedName: `${r.workspace}:${r.name}`,
    type: r.type,
    store: r.store,
    defaultStyle: r.default_style ?? undefined,
    styles: JSON.parse(r.styles),
    enabled: r.enabled === 1,
    bbox: r.bbox ? JSON.parse(r.bbox) : undefined,
    srs: r.srs ?? undefined,
    config: JSON.parse(r.config)
  })
  const removedHooks: Array<(qualifiedName: string) => Promise<void> | void> = []
  const stylesHooks: Array<(before: LayerInfo, after: LayerInfo) => void> = []
  return {
    onStylesChanged (hook) { stylesHooks.push(hook) },
    onRemoved (hook) { removedHooks.push(hook) },
    async removed (names) { for (const name of names) for (const hook of removedHooks) await hook(name) },
    async list (workspace) { return ((workspace ? q.inWs.all(workspace) : q.all.all()) as any[]).map(toInfo) },
    async get (workspace, name) { const r = q.one.get(workspace, name); return r ? toInfo(r) : undefined },
    async setStyles (workspace, name, defaultStyle, styles) {
      const before = q.one.get(workspace, name)
      q.setStyles.run(defaultStyle ?? null, JSON.stringify(styles), workspace, name)
      const after = q.one.get(workspace, name)
      if (!before || !after) return
      for (const hook of stylesHooks) { try { hook(toInfo(before), toInfo(after)) } catch { /* a listener never undoes a committed change */ } }
    }
  }
}
