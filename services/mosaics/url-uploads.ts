// PUT url.geotiff, url.worldimage and url.imagemosaic: GeoServer's upload method `url` (the body is a
// URL whose bytes are the upload, then handled as file.* is). An http: or https: URL is fetched by
// remoteFetch (services/files/remote-fetch.ts: allow-listed hosts, public addresses, capped and timed)
// into a staging file; a file: URL or an absolute path names a file under the harvest roots, copied
// in as an upload would be (the store keeps its own copy, as GeoServer's url method does). A ZIP,
// known by its first bytes, is extracted as file.* extracts one; a GeoTIFF may also come as itself.
import fs from 'node:fs'
import path from 'node:path'
import { withStaging } from '../files/atomic.js'
import { checkName } from '../files/names.js'
import { isRemoteUrl } from '../files/remote-fetch.js'
import { HarvestBadLocation, NoMosaicInArchive, RemoteUploadRefused } from '../errors.js'
import { harvestTarget } from './mosaic-files.js'
import type { FileStoreOptions, FileStoreResult, SingleFileType, StoreType } from './file-stores.js'
import type { MosaicContext } from './mosaic-context.js'

const ZIP_MAGIC = Buffer.from('PK\u0003\u0004', 'latin1')

async function isZip (file: string): Promise<boolean> {
  const h = await fs.promises.open(file, 'r')
  try {
    const head = Buffer.alloc(4)
    const { bytesRead } = await h.read(head, 0, 4, 0)
    return bytesRead === 4 && head.equals(ZIP_MAGIC)
  } finally { await h.close() }
}

export interface UrlUploadTargets {
  upload (ws: string, name: string, zipFile: string, opts: FileStoreOptions & { verify?: boolean }): Promise<FileStoreResult>
  uploadSingle (type: SingleFileType, ws: string, name: string, upload: { path: string, zip: boolean }, opts: FileStoreOptions & { filename?: string }): Promise<FileStoreResult>
}

export function urlUploadOperations (ctx: MosaicContext, to: UrlUploadTargets) {
  const { dataDir, deps } = ctx
  return {
    /** PUT url.<format>: the body's URL fetched (or the server file copied), then uploaded as file.<format>. */
    async uploadFromUrl (type: StoreType, ws: string, name: string, body: string, opts: FileStoreOptions & { filename?: string, verify?: boolean }): Promise<FileStoreResult> {
      await deps.workspaces.get(ws)
      checkName(name, 'coverage store')
      return await withStaging(dataDir, 'url', async (stage) => {
        let file: string
        if (isRemoteUrl(body)) {
          if (!deps.remoteFetch) throw RemoteUploadRefused(JSON.stringify(body.trim().slice(0, 200)), 'remote uploads are off')
          file = path.join(stage, 'download')
          await deps.remoteFetch(body, file)
        } else {
          file = await harvestTarget(body, deps.harvestRoots)
          if (!(await fs.promises.stat(file)).isFile()) throw HarvestBadLocation('the location', `url.${type.toLowerCase()} reads one file (a ZIP${type === 'GeoTIFF' ? ', or the GeoTIFF itself' : ''}), and this is not a regular file`)
        }
        const zip = await isZip(file)
        if (type !== 'ImageMosaic') return await to.uploadSingle(type, ws, name, { path: file, zip }, opts)
        if (!zip) throw NoMosaicInArchive('the URL does not name a ZIP archive')
        return await to.upload(ws, name, file, opts)
      })
    }
  }
}
