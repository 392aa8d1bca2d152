// GET {cache_api}/export/<layer>.mbtiles and .gpkg: the layer's cached tiles as one SQLite file
// (services/tilecache/export.ts), built in a temp file and streamed. Any logged-in user reaches it; the
// layer's read rule decides (the tile cache's authorizer, as for tiles).
import fs from 'node:fs/promises'
import type { TypedApp } from '../infra/routes.js'
import { ExportQuery, FileParams } from '../../schemas/seed.js'
import { ExportInvalid } from '../../services/errors.js'

// MBTiles has no registered media type (SQLite's own); GeoPackage's is registered with IANA.
const MEDIA = { mbtiles: 'application/vnd.sqlite3', gpkg: 'application/geopackage+sqlite3' }

export default async function exportRoutes (app: TypedApp) {
  const cache = app.tileCache
  app.get('/export/:file', {
    config: { access: 'authenticated' },
    schema: { summary: 'The cached tiles of <layer> as an MBTiles (.mbtiles) or GeoPackage (.gpkg) file; query gridSetId, zoomStart, zoomStop, bounds, format and parameter filters', params: FileParams, querystring: ExportQuery }
  }, async (req, reply) => {
    const m = /^(.+)\.(mbtiles|gpkg)$/.exec(req.params.file)
    if (!m) throw ExportInvalid('file', JSON.stringify(req.params.file.slice(0, 200)), 'must be <workspace>:<layer>.mbtiles or .gpkg')
    const kind = m[2] as 'mbtiles' | 'gpkg'
    // A client that goes away stops the build between two tiles.
    const stop = new AbortController()
    reply.raw.on('close', () => stop.abort())
    const out = await cache.exportTiles(m[1], kind, req.query, req.principal, stop.signal)
    // Opened, then unlinked: the file goes away with the stream whatever happens to the request.
    const fh = await fs.open(out.file, 'r')
    await fs.rm(out.file, { force: true })
    const { size } = await fh.stat()
    return reply.type(MEDIA[kind]).header('content-length', size)
      .header('content-disposition', `attachment; filename="${out.name}"`)
      .header('x-tile-count', String(out.tiles))
      .send(fh.createReadStream())
  })
}
