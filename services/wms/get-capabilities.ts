// GetCapabilities: the layers the caller may see (the tile cache's `list` check), described from
// their coverage and the dimension values of their index; capabilities.ts writes the document.
import { srsCode } from '../settings/service-settings.js'
import type { Principal } from '../auth/authenticator.js'
import { allowedStyles, defaultStyleOf } from '../tilecache/parameters.js'
import { remoteStylesOf, type CascadeLayerConfig } from '../cascade/store.js'
import type { CoverageRow } from '../mosaics/store.js'
import { CAPABILITIES_TYPES, wmsCapabilities, type WmsLayerDescription } from './capabilities.js'
import { loadEpsgCodes } from '../render/epsg.js'
import { versionOf, type Kvp } from './request.js'
import type { WmsContext, Where } from './wms-context.js'
import { groupRef, type LayerGroup } from '../catalog/layer-groups.js'

const remoteStyles = (c: CascadeLayerConfig) => {
  const all = remoteStylesOf(c)
  return c.forcedRemoteStyle ? [c.forcedRemoteStyle, ...all.filter((s) => s !== c.forcedRemoteStyle)] : all
}

export function capabilitiesOperations ({ deps, tileCache }: WmsContext) {
  /**
   * The advertised, enabled layer groups among the layers, as GeoServer lists them per mode: a
   * SINGLE group is a named layer, its layers listed as before; an OPAQUE_CONTAINER one too, its
   * layers no longer listed on their own; NAMED and EO groups hold their layers (and groups) nested
   * under them, CONTAINER groups too without a name. A group shows only the layers the caller may
   * read (`layers` holds those), and a group with none of them is not listed.
   */
  async function withGroups (layers: WmsLayerDescription[], where: Where): Promise<WmsLayerDescription[]> {
    const all = (await deps.layerGroups.all()).filter((g) => g.enabled && g.advertised && (!where.workspace || g.workspace === where.workspace))
    if (all.length === 0) return layers
    const byName = new Map(layers.map((l) => [where.workspace ? `${where.workspace}:${l.name}` : l.name!, l]))
    const nestedIn = new Set<string>() // layers and groups listed inside a group, not on their own
    const describe = (g: LayerGroup, seen: Set<string>): WmsLayerDescription | undefined => {
      const ref = groupRef(g)
      const nests = g.mode === 'NAMED' || g.mode === 'CONTAINER' || g.mode === 'EO'
      const children: WmsLayerDescription[] = []
      let visible = 0
      for (const p of g.publishables) {
        if (p.type === 'layer') {
          const l = byName.get(p.name)
          if (!l) continue
          visible++
          if (nests) children.push(l)
          if (g.mode !== 'SINGLE') nestedIn.add(p.name)
        } else {
          const sub = all.find((x) => groupRef(x) === p.name)
          if (!sub || seen.has(p.name)) continue
          const d = describe(sub, new Set([...seen, ref]))
          if (!d) continue
          visible++
          if (nests) children.push(d)
          if (g.mode !== 'SINGLE') nestedIn.add(p.name)
        }
      }
      if (visible === 0) return undefined
      const b = g.bounds
      const bbox: [number, number, number, number] = b && b.crs === 'EPSG:4326'
        ? [b.minx, b.miny, b.maxx, b.maxy]
        : children.length === 0 ? [-180, -90, 180, 90]
          : children.reduce<[number, number, number, number]>((u, c) => [Math.min(u[0], c.bbox[0]), Math.min(u[1], c.bbox[1]), Math.max(u[2], c.bbox[2]), Math.max(u[3], c.bbox[3])], [Infinity, Infinity, -Infinity, -Infinity])
      return {
        name: g.mode === 'CONTAINER' ? undefined : where.workspace ? g.name : ref,
        title: g.title ?? g.name,
        abstract: g.abstractTxt,
        keywords: g.keywords,
        bbox,
        styles: [],
        group: true,
        children
      }
    }
    const groups: Array<[string, WmsLayerDescription]> = []
    for (const g of all) {
      const d = describe(g, new Set())
      if (d) groups.push([groupRef(g), d])
    }
    const top = layers.filter((l) => !nestedIn.has(where.workspace ? `${where.workspace}:${l.name}` : l.name!))
    return [...top, ...groups.filter(([ref]) => !nestedIn.has(ref)).map(([, d]) => d)]
  }

  return {
    /** GetCapabilities: the layers the caller may see listed, in the version asked for. */
    async capabilities (q: Kvp, principal: Principal | undefined, where: Where, onlineResource: string): Promise<{ body: string, contentType: string }> {
      const version = versionOf(q)
      const layers: WmsLayerDescription[] = []
      for (const l of await tileCache.tileLayers(principal, ['list'])) {
        if (where.workspace && l.workspace !== where.workspace) continue
        const styles = allowedStyles(l)
        const def = defaultStyleOf(l)
        if (l.type !== 'RASTER') {
          layers.push({
            name: where.workspace ? l.name : l.qualifiedName,
            title: l.name,
            keywords: [l.type === 'VECTOR' ? 'features' : 'cascaded', l.name],
            bbox: l.bbox ?? [-180, -90, 180, 90],
            nativeCrs: l.srs,
            // A cascaded WMS layer offers the remote's styles (those selected), the forced one first.
            styles: l.type === 'WMS' ? remoteStyles(l.config as unknown as CascadeLayerConfig) : def ? [def, ...styles.filter((s) => s !== def)] : styles,
            attribution: l.attribution
          })
          continue
        }
        let coverage: CoverageRow | undefined
        try { coverage = (await deps.mosaics.getWorkspaceCoverage(l.workspace, l.name)).coverage } catch { coverage = undefined }
        const values = await deps.mosaics.dimensionValues(l.workspace, l.store, l.name)
        layers.push({
          name: where.workspace ? l.name : l.qualifiedName,
          title: coverage?.title ?? l.name,
          abstract: coverage?.config.abstract,
          keywords: ['WCS', coverage?.config.nativeFormat ?? 'ImageMosaic', l.name],
          bbox: l.bbox ?? [-180, -90, 180, 90],
          nativeCrs: l.srs,
          styles: def ? [def, ...styles.filter((s) => s !== def)] : styles,
          attribution: l.attribution,
          time: values.time ? { values: values.time, default: [...values.time].sort().at(-1) } : undefined,
          elevation: values.elevation ? { values: values.elevation, default: values.elevation.length ? Math.min(...values.elevation) : undefined } : undefined
        })
      }
      await loadEpsgCodes() // the root layer lists every code; read once, off the event loop
      // A workspace's own settings describe its virtual service; without them the global ones do,
      // its title saying which workspace it is.
      const own = where.workspace !== undefined ? deps.serviceSettings.local('wms', where.workspace) : undefined
      const s = own ?? deps.serviceSettings.get('wms')
      const title = own || where.workspace === undefined ? s.title ?? '' : `${s.title ?? ''}: workspace ${where.workspace}`
      const service = { title, abstract: s.abstrct, keywords: s.keywords, onlineResource: s.onlineResource, fees: s.fees, accessConstraints: s.accessConstraints }
      return { body: wmsCapabilities(await withGroups(layers, where), { version, onlineResource, maxSize: deps.maxSize, service, srs: (s.srs ?? []).flatMap((c) => srsCode(c) ?? []), bboxForEachCRS: s.bboxForEachCRS }), contentType: CAPABILITIES_TYPES[version] }
    }
  }
}
