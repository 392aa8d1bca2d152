// A ZIP of files on disk, streamed to the client as it is built (style and app-schema downloads).
import type { Readable } from 'node:stream'
import yazl from 'yazl'

/** `files`: the name each file has in the archive and where it is on disk. */
export function zipStream (files: Array<{ name: string, path: string }>): Readable {
  const zip = new yazl.ZipFile()
  for (const f of files) zip.addFile(f.path, f.name)
  zip.end()
  return zip.outputStream as unknown as Readable
}
