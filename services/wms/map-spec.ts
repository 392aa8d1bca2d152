// The part of GetMap and GetFeatureInfo requests they share (the map): version, layers and their
// styles (STYLES, or SLD_BODY's named and user styles), CRS, BBOX and size, each checked.
import type { Principal } from '../auth/authenticator.js'
import { isCascaded, type LayerInfo } from '../catalog/layers.js'
import { remoteStylesOf, type CascadeLayerConfig } from '../cascade/store.js'
import { allowedStyles, defaultStyleOf } from '../tilecache/parameters.js'
import { parseSld, rasterStyleOf } from '../styles/sld.js'
import { vectorStyleOf } from '../styles/vector-sld.js'
import { embedGraphics } from '../styles/style-graphics.js'
import type { VectorStyle } from '../render/vector/vector-style.js'
import { children, text } from '../files/xml-nodes.js'
import { isMapwardenError, WmsInvalidParameter, WmsLayerNotDefined, WmsMissingParameter, WmsStyleNotDefined } from '../errors.js'
import type { RasterStyle } from '../render/render-types.js'
import { list, parseBbox, parseSize, required, resolveCrs, versionOf, type Kvp, type ResolvedCrs, type WmsVersion } from './request.js'
import type { WmsContext, Where } from './wms-context.js'

/** Largest SLD_BODY accepted (characters): a raster style is a few kilobytes. */
export const SLD_BODY_LIMIT = 64 * 1024

export interface MapSpec {
  version: WmsVersion
  layers: LayerInfo[]
  styles: Array<RasterStyle | undefined>
  /** The vector layers' styles (undefined for a raster layer), by layer as `styles`. */
  vectorStyles: Array<VectorStyle | undefined>
  styleNames: string[]
  crs: ResolvedCrs
  bbox: [number, number, number, number]
  width: number
  height: number
  q: Kvp
  /** The layer groups the request named (drawn as their layers, never from the tile cache). */
  groups: string[]
}

/** A layer's style from SLD_BODY: its RasterStyle and the SLD its vector style is compiled from, or
 *  the name of a catalog style (NamedStyle). */
interface SldLayerStyle { style?: RasterStyle, sld?: string, named?: string }

/** Styles from SLD_BODY, by layer name. */
async function sldStyles (sld: string): Promise<Map<string, SldLayerStyle>> {
  if (sld.length > SLD_BODY_LIMIT) throw WmsInvalidParameter('SLD_BODY', `of ${sld.length} characters`, `the limit is ${SLD_BODY_LIMIT}`)
  const parsed = await parseSld(sld)
  const out = new Map<string, SldLayerStyle>()
  for (const kind of ['NamedLayer', 'UserLayer']) {
    for (const node of children(parsed.root, kind)) {
      const name = text(children(node, 'Name')[0])?.trim()
      if (!name) throw WmsInvalidParameter('SLD_BODY', kind, 'every layer of the SLD needs a Name')
      const named = text(children(children(node, 'NamedStyle')[0], 'Name')[0])?.trim()
      if (named && children(node, 'UserStyle').length === 0) out.set(name, { named })
      else out.set(name, { style: rasterStyleOf({ ...parsed, root: { [kind]: node } }), sld })
    }
  }
  return out
}

/** The vector style SLD_BODY gives a layer; a style that cannot be drawn is a 400 naming SLD_BODY. */
async function sldVectorStyle (sld: string, layer: string | undefined): Promise<VectorStyle> {
  // Its ExternalGraphics can only be data: URIs: a style sent with the request has no folder.
  try { return await embedGraphics(await vectorStyleOf(sld, layer), undefined) } catch (err) {
    if (isMapwardenError(err)) throw WmsInvalidParameter('SLD_BODY', '', err.message)
    throw err
  }
}

export async function mapSpec (ctx: WmsContext, q: Kvp, principal: Principal | undefined, where: Where): Promise<MapSpec> {
  const { deps } = ctx
  const version = versionOf(q, q.CRS !== undefined ? '1.3.0' : '1.1.1')
  const sld = q.SLD_BODY !== undefined && q.SLD_BODY.trim() !== '' ? await sldStyles(q.SLD_BODY) : undefined
  let names = list(q.LAYERS)
  if (names.length === 0 && sld) names = [...sld.keys()]
  if (names.length === 0 || names.some((n) => n === '')) throw WmsMissingParameter('LAYERS')
  const styleNames = list(q.STYLES)
  if (styleNames.length > 0 && styleNames.length !== names.length && !(styleNames.length === 1 && styleNames[0] === '')) {
    throw WmsInvalidParameter('STYLES', JSON.stringify(q.STYLES), `${styleNames.length} styles for ${names.length} layers`)
  }
  const crsName = version === '1.3.0' ? 'CRS' : 'SRS'
  const crs = resolveCrs(q[crsName] ?? q.CRS ?? q.SRS ?? required(q, crsName), version)
  const bbox = parseBbox(required(q, 'BBOX'), crs)
  const width = parseSize(q, 'WIDTH', deps.maxSize)
  const height = parseSize(q, 'HEIGHT', deps.maxSize)
  const layers: LayerInfo[] = []
  const styles: Array<RasterStyle | undefined> = []
  const vectorStyles: Array<VectorStyle | undefined> = []
  const resolvedNames: string[] = []
  const groups: string[] = []
  /** One layer to draw; a group's member takes the group's style as is (any style, as in GeoServer). */
  const add = async (layer: LayerInfo, styleName: string, fromSld: SldLayerStyle | undefined, ofGroup = false, sldName?: string) => {
    if (fromSld?.named) styleName = fromSld.named
    if (isCascaded(layer)) {
      // A cascaded layer's styles are the remote's (WMS: those it offers or the layer selects; WMTS: none to name).
      const remote = layer.type === 'WMS' ? remoteStylesOf(layer.config as unknown as CascadeLayerConfig) : []
      if (!ofGroup && styleName !== '' && !remote.includes(styleName)) throw WmsStyleNotDefined(styleName, layer.qualifiedName, remote.join(', ') || '(the remote\'s default only)')
      layers.push(layer)
      resolvedNames.push(ofGroup || !remote.includes(styleName) ? '' : styleName)
      styles.push(undefined)
      vectorStyles.push(undefined)
      return
    }
    // A style of the layer's workspace may be named without its prefix (GeoServer resolves it there first).
    if (!ofGroup && styleName !== '' && !allowedStyles(layer).includes(styleName) && allowedStyles(layer).includes(`${layer.workspace}:${styleName}`)) {
      styleName = `${layer.workspace}:${styleName}`
    }
    if (!ofGroup && styleName !== '' && !allowedStyles(layer).includes(styleName)) {
      throw WmsStyleNotDefined(styleName, layer.qualifiedName, allowedStyles(layer).join(', ') || '(default only)')
    }
    const effective = styleName || defaultStyleOf(layer) || ''
    layers.push(layer)
    resolvedNames.push(effective)
    if (layer.type === 'VECTOR') {
      styles.push(undefined)
      vectorStyles.push(fromSld?.sld !== undefined && !fromSld.named ? await sldVectorStyle(fromSld.sld, sldName) : await deps.styles.vectorStyleFor(layer.workspace, effective))
      return
    }
    vectorStyles.push(undefined)
    styles.push(fromSld && !fromSld.named ? fromSld.style : await deps.styles.rasterStyleFor(layer.workspace, effective))
  }
  for (const [i, name] of names.entries()) {
    // A layer group stands for its layers, in order, each with the group's style for it; the
    // layers the caller may not read are left out (a group with none left is not defined).
    let layer: LayerInfo
    try { layer = await ctx.readable(name, principal, where) } catch (err) {
      const group = isMapwardenError(err) && err.code === WmsLayerNotDefined.code ? await ctx.readableGroup(name, principal, where) : undefined
      if (!group) throw err
      if ((styleNames[i] ?? '') !== '') throw WmsStyleNotDefined(styleNames[i], name, '(the group\'s own styles only)')
      groups.push(name)
      for (const m of group) await add(m.layer, m.style, undefined, true)
      continue
    }
    const sldName = sld?.has(name) ? name : layer.qualifiedName
    await add(layer, styleNames[i] ?? '', sld?.get(sldName), false, sldName)
  }
  return { version, layers, styles, vectorStyles, styleNames: resolvedNames, crs, bbox, width, height, q, groups }
}
