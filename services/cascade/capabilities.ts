// What a cascaded layer needs from the remote's WMS capabilities: its layers by name with their
// title, lon/lat bounds (WMS 1.1.1 LatLonBoundingBox, 1.3.0 EX_GeographicBoundingBox) and styles
// (a layer's own and its parents', as WMS inheritance says), the GetMap formats, and the text of an
// exception report. Parsed safely (files/xml.ts: no entities); a plain
// `<!DOCTYPE x SYSTEM "...">` line, which WMS 1.1.1 capabilities carry, is dropped unread.
import { parseXml, type XmlValue } from '../files/xml.js'
import { attr, children, childText, rootOf, text } from '../files/xml-nodes.js'

export interface RemoteLayer {
  name: string
  title?: string
  abstract?: string
  latLonBbox?: [number, number, number, number]
  /** The remote's style names for the layer (WMS: inherited ones too; WMTS: its Style identifiers). */
  styles: string[]
  /** The image formats the remote draws the layer in (WMS: GetMap's; WMTS: the layer's). */
  formats: string[]
}

const dropDoctype = (xml: string) => xml.replace(/<!DOCTYPE[^[>]*>/i, '')

function bboxOf (layer: XmlValue): [number, number, number, number] | undefined {
  const ll = children(layer, 'LatLonBoundingBox')[0]
  if (ll !== undefined) {
    const b = ['minx', 'miny', 'maxx', 'maxy'].map((k) => Number(attr(ll, k)))
    if (b.every(Number.isFinite)) return b as [number, number, number, number]
  }
  const ex = children(layer, 'EX_GeographicBoundingBox')[0]
  if (ex !== undefined) {
    const b = ['westBoundLongitude', 'southBoundLatitude', 'eastBoundLongitude', 'northBoundLatitude'].map((k) => Number(childText(ex, k)))
    if (b.every(Number.isFinite)) return b as [number, number, number, number]
  }
  return undefined
}

/** Every named layer of a WMS capabilities document, nested ones too (bounds inherited from the parent). */
export async function remoteLayers (xml: string): Promise<RemoteLayer[]> {
  const [, root] = rootOf(await parseXml(dropDoctype(xml)))
  const out: RemoteLayer[] = []
  const capability = children(root, 'Capability')[0]
  const getMap = children(children(capability, 'Request')[0], 'GetMap')[0]
  const formats = children(getMap, 'Format').map((f) => text(f) ?? '').filter((f) => f !== '')
  const walk = (node: XmlValue, inherited: [number, number, number, number] | undefined, inheritedStyles: string[]) => {
    for (const layer of children(node, 'Layer')) {
      const bbox = bboxOf(layer) ?? inherited
      const styles = [...new Set([...inheritedStyles, ...children(layer, 'Style').map((st) => childText(st, 'Name') ?? '').filter((n) => n !== '')])]
      const name = childText(layer, 'Name')
      if (name) out.push({ name, title: childText(layer, 'Title'), abstract: childText(layer, 'Abstract'), latLonBbox: bbox, styles, formats })
      walk(layer, bbox, styles)
    }
  }
  walk(capability, undefined, [])
  return out
}

/** The message of an OGC exception report (or the start of any other text). */
export async function exceptionText (body: Buffer): Promise<string> {
  const raw = body.subarray(0, 64 * 1024).toString('utf8')
  try {
    const [, root] = rootOf(await parseXml(dropDoctype(raw)))
    const ex = children(root, 'ServiceException')[0] ?? children(root, 'Exception')[0]
    const msg = text(ex) ?? childText(ex, 'ExceptionText')
    if (msg) return msg.replace(/\s+/g, ' ').slice(0, 500)
  } catch { /* not XML: its first characters */ }
  return raw.replace(/\s+/g, ' ').trim().slice(0, 200) || '(an empty answer)'
}
