// Style packages (ZIP): one SLD and the images it references, at the top level of the archive, as
// GeoServer's StyleController.unzipSldPackage reads them. Differences, documented in the README:
// exactly one .sld is required (GeoServer picks one of several at random), and image names must
// be plain file names (checkName), so no entry can address a file outside the styles folder.
// Files in sub-folders and other top-level files are ignored, as GeoServer does.
import fs from 'node:fs/promises'
import path from 'node:path'
import { extractZip, listZip, type ZipLimits } from '../files/zip.js'
import { assertNoDoctype } from '../files/xml.js'
import { checkName, MAX_FILE_NAME_BYTES } from '../files/names.js'
import { NoSldInZip, SeveralSldsInZip } from '../errors.js'

export const IMAGE_EXTENSIONS = ['.svg', '.png', '.jpg', '.jpeg', '.gif', '.bmp']

export interface StylePackage { sld: string, sldEntry: string, images: string[] }

/** XML declares its encoding in the prolog; UTF-8 unless it says otherwise. */
function decodeXml (bytes: Buffer): string {
  const head = bytes.subarray(0, 200).toString('latin1')
  const m = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(head)
  let label = m ? m[1] : 'utf-8'
  try { new TextDecoder(label) } catch { label = 'utf-8' }
  return new TextDecoder(label).decode(bytes)
}

/** Validates the whole archive, then extracts its SLD and images into `stage` (caller removes it). */
export async function unpackStylePackage (zipPath: string, stage: string, limits: ZipLimits): Promise<StylePackage> {
  const entries = (await listZip(zipPath, limits)).filter((e) => !e.directory && !e.name.includes('/'))
  const slds = entries.filter((e) => /\.sld$/i.test(e.name))
  if (slds.length === 0) throw NoSldInZip()
  if (slds.length > 1) throw SeveralSldsInZip(slds.map((e) => e.name).join(', '))
  const images = entries.filter((e) => IMAGE_EXTENSIONS.includes(path.extname(e.name).toLowerCase()))
    .map((e) => checkName(e.name, 'style image', MAX_FILE_NAME_BYTES))
  const wanted = new Set([slds[0].name, ...images])
  await extractZip(zipPath, stage, limits, (e) => wanted.has(e.name))
  const sld = decodeXml(await fs.readFile(path.join(stage, slds[0].name)))
  assertNoDoctype(sld) // before any parser sees it
  return { sld, sldEntry: slds[0].name, images }
}
