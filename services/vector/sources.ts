// One vector source per data store, opened on first use and kept while the store's configuration
// stays the same: a changed store (PUT) gets a new pool and the old one is closed, a deleted one is
// closed. The password is opened from its sealed token only here, when connecting. The store's type
// picks the source: PostGIS (a pool), GeoPackage (the file read-only), Shapefile (a .shp or a folder);
// a file store's location is resolved here against the data directory (checked when it was stored).
import path from 'node:path'
import { connectionSettings } from '../datastores/params.js'
import type { DataStoreRow } from '../datastores/store.js'
import type { Secrets } from '../datastores/service.js'
import { createPostgisSource, type PostgisSourceOptions } from './postgis-source.js'
import type { VectorSource } from './source.js'
import { GEOPACKAGE_TYPE, locationPath, SHAPEFILE_DIRECTORY_TYPE, SHAPEFILE_TYPE, type FileRoots } from '../datastores/files.js'
import { createGeoPackageSource } from './geopackage-source.js'
import { createShapefileSource } from './shapefile-source.js'

/** GeoServer's default charset of a shapefile's .dbf. */
export const DEFAULT_SHAPEFILE_CHARSET = 'ISO-8859-1'

/** Where the spatial indexes of shapefiles read in place live: the data directory, never the data's own folder. */
export const shapefileIndexDir = (dataDir: string) => path.join(dataDir, 'shapefile-index')

/** The source of a GeoPackage or Shapefile store row; undefined for another type. */
export function openFileSource (row: DataStoreRow, dataDir: string): VectorSource | undefined {
  const p = row.config.connectionParameters
  const fetchSize = p['fetch size'] ? Number(p['fetch size']) : DEFAULT_FETCH_SIZE
  if (row.type === GEOPACKAGE_TYPE) {
    return createGeoPackageSource({ file: locationPath(p.database, dataDir), fetchSize, exposePrimaryKeys: p['Expose primary keys'] === 'true' })
  }
  if (row.type === SHAPEFILE_TYPE || row.type === SHAPEFILE_DIRECTORY_TYPE) {
    return createShapefileSource({ path: locationPath(p.url, dataDir), charset: p.charset?.trim() || DEFAULT_SHAPEFILE_CHARSET, fetchSize, indexDir: shapefileIndexDir(dataDir) })
  }
  return undefined
}

/** GeoServer's PostGIS defaults. */
const DEFAULT_MAX_CONNECTIONS = 10
const DEFAULT_MIN_CONNECTIONS = 1
const DEFAULT_FETCH_SIZE = 1000

export function postgisOptions (row: DataStoreRow, secrets: Secrets): PostgisSourceOptions {
  const p = row.config.connectionParameters
  const token = p.passwd
  const s = connectionSettings(p, token === undefined ? undefined : secrets.openSecret(token))
  const num = (key: string, dflt: number) => p[key] !== undefined && p[key] !== '' ? Number(p[key]) : dflt
  const max = num('max connections', DEFAULT_MAX_CONNECTIONS)
  return {
    ...s,
    maxConnections: max,
    minConnections: Math.min(num('min connections', DEFAULT_MIN_CONNECTIONS), max),
    fetchSize: num('fetch size', DEFAULT_FETCH_SIZE),
    looseBbox: p['Loose bbox'] === 'true',
    exposePrimaryKeys: p['Expose primary keys'] === 'true'
  }
}

export function createSourceRegistry (secrets: Secrets, open: (o: PostgisSourceOptions) => VectorSource = createPostgisSource, files: FileRoots = { dataDir: '.', harvestRoots: [] }) {
  const open_ = new Map<string, { config: string, source: VectorSource }>()
  const key = (ws: string, name: string) => `${ws}\u0000${name}`
  return {
    /** The source of a store row (PostGIS, GeoPackage, Shapefile). */
    forStore (row: DataStoreRow): VectorSource {
      const k = key(row.workspace, row.name)
      const config = JSON.stringify(row.config.connectionParameters)
      const had = open_.get(k)
      if (had && had.config === config) return had.source
      if (had) had.source.close().catch(() => undefined)
      const source = openFileSource(row, files.dataDir) ?? open(postgisOptions(row, secrets))
      open_.set(k, { config, source })
      return source
    },
    /** Closes the source of a store that changed or went away. */
    async forget (ws: string, name: string): Promise<void> {
      const k = key(ws, name)
      const had = open_.get(k)
      open_.delete(k)
      if (had) await had.source.close().catch(() => undefined)
    },
    /** Closes the sources of a deleted workspace's stores. */
    async forgetWorkspace (ws: string): Promise<void> {
      for (const [k, had] of [...open_]) {
        if (!k.startsWith(`${ws}\u0000`)) continue
        open_.delete(k)
        await had.source.close().catch(() => undefined)
      }
    },
    async closeAll (): Promise<void> {
      const all = [...open_.values()]
      open_.clear()
      await Promise.all(all.map((s) => s.source.close().catch(() => undefined)))
    }
  }
}
export type SourceRegistry = ReturnType<typeof createSourceRegistry>
