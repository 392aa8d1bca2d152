// What the WFS needs of app-schema stores: a stored mapping loaded once per version of its files
// (mappings, opened sources, the target schemas' property order), GetFeature of mapped types as
// GML of the target schema's version (3.2 where the mapping binds gml to GML 3.2, else 3.1.1) with
// the mapping's namespaces, streamed, paged, resultType=hits; DescribeFeatureType as the target
// schema itself. Also the upload's check that every source of a mapping can be read.
import path from 'node:path'
import { normalizeCrs, transformBbox } from '../render/crs.js'
import { crsName } from '../filters/ogc-xml.js'
import { allOf, type Envelope } from '../filters/tree.js'
import { defaultSrsName, reprojector, swapAxes, type Geo } from '../wfs/geometry.js'
import { geojsonToWkb } from '../vector/geometry.js'
import type { Feature, ReadQuery } from '../vector/source.js'
import type { VectorLayerData } from '../render/vector/vector-plan.js'
import { escapeXml } from '../xml-escape.js'
import { isMapwardenError, WfsFeatureNotFound, WfsInvalidParameter } from '../errors.js'
import { attributesOf, emptySchemaSet, loadSchema, qkey, type AttributeInfo, type SchemaSet } from './schemas.js'
import { readLoc, resolveRef } from './references.js'
import { loadMapping, localName, parseSteps, prefixOf, type LoadedMapping, type Step, type TypeMapping } from './type-mapping.js'
import { openRowSource, type Openers, type RowSource } from './row-sources.js'
import { countFeatures, encodedFeatures, groupedFeatures, sameStep, type ExecContext, type FeatureQuery, type Writer } from './complex-features.js'
import type { StoreConfig } from './store.js'
import { mappedColumns, mappedFilter, xpathOf, type MappedColumns, type MappedQueryFilter } from './mapped-filter.js'

export const GML32_NS = 'http://www.opengis.net/gml/3.2'
const x = (s: string) => escapeXml(s)
const AS_NS = 'http://www.geotools.org/app-schema'
/** Prefixes the collection binds itself. */
const RESERVED = new Set(['wfs', 'xsi', 'xlink', 'gml'])

interface Loaded {
  mapping: LoadedMapping
  sources: Map<string, RowSource | string>
  set: SchemaSet
  /** The schema's properties of each target element, in order (names, minOccurs). */
  orders: Map<string, AttributeInfo[] | undefined>
}

/** One feature type of a request, as the WFS resolved it (its rules applied). */
export interface ComplexQueryType {
  store: { workspace: string, name: string, config: StoreConfig }
  /** The feature type's native name: the mapping's mappingName or targetElement's local name. */
  nativeName: string
  srs?: string
  /** The query's filters (ECQL, OGC/FES XML) and resource ids, on the mapped XPaths. */
  filters: MappedQueryFilter[]
  ids?: string[]
  /** propertyName: the mapped XPaths asked for (mandatory properties are written too). */
  properties?: string[]
  /** sortBy on mapped XPaths that map to a source column. */
  sortBy?: Array<{ name: string, descending: boolean }>
  /** srsName: the CRS the geometries are written in (reprojected from the data's). */
  srsName?: string
  /** The BBOX parameter, in the type's CRS (`srs`), easting first. */
  bbox?: Envelope
}

/** What the upload learns by reading a mapping's sources. */
export interface SourceCheck {
  /** Sources or sourceTypes that cannot be read, each naming its data store. */
  problems: Array<{ file: string, element: string, message: string }>
  /** Per mapping with a mapped geometry: its XPath, CRS and bounds (native, and lon/lat). */
  types: Array<{ targetElement: string, mappingName?: string, geometry: string, srs?: string, nativeBbox?: Envelope, latLonBbox?: Envelope }>
}

export interface ComplexRequest {
  version: '2.0.0' | '1.1.0' | '1.0.0'
  startIndex: number
  count?: number
  resultType: 'results' | 'hits'
  maxFeatures: number
  hitsIgnoreMaxFeatures: boolean
  /** DescribeFeatureType URL of type names, for schemaLocation. */
  describe: (names: string[]) => string
  qualified: string[]
  /** GetFeatureById: the one feature of the first type's ids. */
  byId?: boolean
  /** GetPropertyValue: the XPath whose values are answered. */
  valueReference?: string
}

export function createComplexServing ({ dataDir, openers }: { dataDir: string, openers: Openers }) {
  const cacheDir = path.join(dataDir, 'app-schema-cache')
  const loaded = new Map<string, Promise<Loaded>>()

  const load = async (dir: string, mainFile: string): Promise<Loaded> => {
    const mapping = await loadMapping(dir, mainFile)
    const sources = new Map<string, RowSource | string>()
    for (const [id, decl] of mapping.stores) sources.set(id, openRowSource(decl, dir, openers))
    const set = emptySchemaSet()
    const problems: Array<{ file: string, element: string, message: string }> = []
    for (const uri of mapping.schemaUris) {
      const r = resolveRef(uri, { kind: 'upload', rel: mainFile })
      if (r.loc) await loadSchema({ uploadRoot: dir, cacheDir, set, problems }, r.loc, { file: mainFile, element: 'schemaUri' })
    }
    const orders = new Map<string, AttributeInfo[] | undefined>()
    for (const m of mapping.mappings) {
      const decl = set.elements.get(qkey(mapping.namespaces.get(prefixOf(m.targetElement)) ?? '', localName(m.targetElement)))
      orders.set(m.targetElement, decl ? attributesOf(set, decl) : undefined)
    }
    return { mapping, sources, set, orders }
  }

  const loadedOf = (config: StoreConfig): Promise<Loaded> => {
    const dir = path.join(dataDir, config.dir)
    let l = loaded.get(dir)
    if (!l) {
      l = load(dir, config.mainFile)
      loaded.set(dir, l)
      l.catch(() => loaded.delete(dir))
      // Older versions of the same store are closed: their files are gone.
      for (const [k, v] of [...loaded]) {
        if (k !== dir && path.dirname(k) === path.dirname(dir)) { loaded.delete(k); void v.then(closeAll, () => undefined) }
      }
    }
    return l
  }

  const closeAll = async (l: Loaded) => {
    for (const s of l.sources.values()) if (typeof s !== 'string') await s.close().catch(() => undefined)
  }

  const mappingOf = (l: Loaded, nativeName: string): TypeMapping | undefined =>
    l.mapping.mappings.find((m) => m.mappingName === nativeName) ??
    l.mapping.mappings.find((m) => !m.mappingName && localName(m.targetElement) === nativeName)

  /**
   * How a request's geometries are written: the data's CRS `dataCrs`, reprojected to the srsName
   * asked for (named as asked, in its axis order, as the simple WFS writes them: wfs/geometry.ts),
   * else in the data's CRS under the default name of the GML's version.
   */
  const contextOf = (l: Loaded, version: ComplexRequest['version'], dataCrs: string | undefined, asked?: string): ExecContext => {
    const v32 = l.mapping.namespaces.get('gml') === GML32_NS
    const named = asked ? crsName(asked) : undefined
    const outCrs = named?.code ?? (dataCrs ? normalizeCrs(dataCrs) : undefined)
    const out = asked && named ? { name: asked, latFirst: named.latFirst } : outCrs ? defaultSrsName(v32 ? '2.0.0' : version === '1.0.0' ? '1.0.0' : '1.1.0', outCrs) : undefined
    const toOut = reprojector(dataCrs, outCrs)
    return {
      mapping: l.mapping,
      sourceOf: (m) => {
        const s = l.sources.get(m.sourceDataStore)
        if (!s || typeof s === 'string') throw new Error(`data store "${m.sourceDataStore}" of mapping ${m.key}: ${s ?? 'not declared'}`)
        return s
      },
      order: (el) => l.orders.get(el)?.map((a) => a.name),
      mandatory: (el) => new Set((l.orders.get(el) ?? []).filter((a) => a.minOccurs >= 1).map((a) => a.name)),
      v32,
      ...(out ? { srsName: out.name } : {}),
      project: out?.latFirst ? (g) => swapAxes(toOut(g)) : toOut
    }
  }

  /** An XPath of a request on mapping `m` as steps, without a first step naming the feature itself. */
  const requestSteps = (m: TypeMapping, xpath: string, locator: string): Step[] => {
    let steps: Step[]
    try { steps = parseSteps(xpath) } catch (err) { throw WfsInvalidParameter(locator, JSON.stringify(xpath.slice(0, 80)), (err as Error).message) }
    if (steps.length > 0 && sameStep(steps[0], { prefix: prefixOf(m.targetElement), local: localName(m.targetElement) })) steps = steps.slice(1)
    if (steps.length === 0) throw WfsInvalidParameter(locator, JSON.stringify(xpath.slice(0, 80)), `names no property of ${m.targetElement}`)
    // A step must lead somewhere the mapping writes (a mapped XPath, a parent or a part of one).
    const maps = (am: TypeMapping['attributes'][number]) => am.target.length > 0 && am.target.slice(0, Math.min(steps.length, am.target.length))
      .every((t, i) => sameStep(t, steps[i]))
    if (!m.attributes.some(maps)) throw WfsInvalidParameter(locator, JSON.stringify(xpath.slice(0, 80)), `${m.targetElement} maps ${[...new Set(m.attributes.filter((am) => am.target.length > 0).map((am) => am.targetText.trim()))].join(', ')}`)
    return steps
  }

  /** GetPropertyValue's valueReference: a mapped XPath, at most down to a chained feature's property (the feature is its value). */
  const valueSteps = (m: TypeMapping, xpath: string): Step[] => {
    const steps = requestSteps(m, xpath, 'valueReference')
    const chained = m.attributes.find((am) => am.link && steps.length > am.target.length && am.target.every((t, i) => sameStep(t, steps[i])))
    if (chained) throw WfsInvalidParameter('valueReference', JSON.stringify(xpath.slice(0, 80)), `reaches into the chained feature of ${chained.targetText.trim()}: ask for ${chained.targetText.trim()} itself`)
    return steps
  }

  /** sortBy on mapped XPaths: each must map to a source column (not the geometry), else it is refused naming those that do. */
  const sortColumns = (m: TypeMapping, { columns, kinds }: MappedColumns, sortBy: NonNullable<ComplexQueryType['sortBy']>) => {
    const sortable = m.attributes.filter((am) => kinds.get(columns.get(xpathOf(am)) ?? '') !== undefined && kinds.get(columns.get(xpathOf(am))!) !== 'Geometry')
    return sortBy.map((s) => {
      const steps = requestSteps(m, s.name, 'sortBy')
      const am = sortable.find((a) => a.target.length === steps.length &&
        a.target.every((t, i) => sameStep(t, steps[i]) && (t.index ?? 1) === (steps[i].index ?? 1)))
      if (!am) throw WfsInvalidParameter('sortBy', JSON.stringify(s.name.slice(0, 80)), `not mapped to a source column; ${m.targetElement} sorts by ${[...new Set(sortable.map((a) => a.targetText.trim()))].join(', ') || 'none of its XPaths'}`)
      return { name: columns.get(xpathOf(am))!, descending: s.descending }
    })
  }

  return {
    /**
     * The GML of the mapped features of `types` (one query each), as a stream of strings; with
     * `byId`, the one feature alone (GetFeatureById); with `valueReference`, the values at that
     * XPath as a wfs:ValueCollection (GetPropertyValue).
     */
    async getFeature (types: ComplexQueryType[], req: ComplexRequest): Promise<{ contentType: string, body: AsyncIterable<string>, matched: number }> {
      const plans = []
      const stats = { queries: 0 }
      for (const t of types) {
        const l = await loadedOf(t.store.config)
        const m = mappingOf(l, t.nativeName)
        if (!m) throw new Error(`no mapping for ${t.nativeName}`)
        // The declared SRS, else the one of the mapping's source geometry (a PostGIS column's SRID).
        const source = l.sources.get(m.sourceDataStore)
        const srid = t.srs === undefined && source && typeof source !== 'string' ? await source.srid(m.sourceType) : undefined
        const srs = t.srs ?? (srid ? `EPSG:${srid}` : undefined)
        const ctx = contextOf(l, req.version, srs, t.srsName)
        const src = ctx.sourceOf(m)
        const mapped = await mappedColumns(m, src)
        const filter = await mappedFilter(m, ctx, t.filters, t.ids, srs ?? 'EPSG:4326', mapped)
        if (t.bbox) {
          // The BBOX parameter: the mapped geometry's source column meets the envelope (in its CRS).
          if (!mapped.geometry) throw WfsInvalidParameter('bbox', '', `${m.targetElement} maps no geometry`)
          filter.sql = allOf([...(filter.sql ? [filter.sql] : []), { k: 'bbox', env: t.bbox }])
        }
        const q: FeatureQuery = {
          ...(t.sortBy ? { sortBy: sortColumns(m, mapped, t.sortBy) } : {}),
          ...(t.properties ? { properties: t.properties.map((p) => requestSteps(m, p, 'propertyName')) } : {}),
          ...(req.valueReference !== undefined ? { values: valueSteps(m, req.valueReference) } : {})
        }
        plans.push({ t, l, m, ctx, filter, q, matched: await countFeatures(ctx, m, filter, stats) })
      }
      let skip = req.startIndex
      let left = Math.min(req.count ?? Infinity, req.maxFeatures)
      const pages = plans.map((p) => {
        const offset = Math.min(skip, p.matched)
        skip -= offset
        const limit = Math.min(left, p.matched - offset)
        left -= limit
        return { ...p, offset, limit }
      })
      let matched = plans.reduce((s, p) => s + p.matched, 0)
      const hits = req.resultType === 'hits'
      if (hits && !req.hitsIgnoreMaxFeatures) matched = Math.min(matched, req.maxFeatures)
      const returned = hits ? 0 : pages.reduce((s, p) => s + Math.max(0, p.limit), 0)
      const v32 = pages[0].ctx.v32
      const ns = new Map<string, string>([['xlink', 'http://www.w3.org/1999/xlink']])
      for (const p of pages) for (const [k, v] of p.l.mapping.namespaces) if (k !== '' && !ns.has(k) && !RESERVED.has(k) && v !== AS_NS) ns.set(k, v)
      ns.set('gml', v32 ? GML32_NS : 'http://www.opengis.net/gml')
      const xmlns = [...ns].map(([k, v]) => ` xmlns:${k}="${x(v)}"`).join('')
      const contentType = v32 ? 'application/gml+xml; version=3.2' : 'text/xml; subtype=gml/3.1.1'
      const features = (w: Writer, p: typeof pages[number]) => encodedFeatures(p.ctx, p.m, p.offset, p.limit, w, stats, p.filter, p.q)
      const stamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')

      if (req.byId) {
        // GetFeatureById: the feature itself, its namespaces on it; 404 NotFound when there is none.
        const id = types[0].ids?.[0] ?? ''
        if (pages[0].matched === 0) throw WfsFeatureNotFound(id)
        let feature = ''
        for await (const f of features({ written: new Set() }, pages[0])) { feature = f; break }
        const root = feature.replace(/^<([^ >/]+)/, `$& xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"${xmlns}`)
        return { contentType, body: (async function * () { yield '<?xml version="1.0" encoding="UTF-8"?>\n' + root + '\n' })(), matched }
      }
      if (req.valueReference !== undefined) {
        async function * values (): AsyncGenerator<string> {
          yield '<?xml version="1.0" encoding="UTF-8"?>\n<wfs:ValueCollection xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs/2.0"' +
            `${xmlns} numberMatched="${matched}" numberReturned="${returned}" timeStamp="${stamp}" xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd">\n`
          const w: Writer = { written: new Set() }
          for (const p of pages) for await (const v of features(w, p)) yield `${v}\n`
          yield '</wfs:ValueCollection>\n'
        }
        return { contentType: 'application/xml', body: values(), matched }
      }
      const schemaLocation = [...new Set(pages.map((p) => p.l.mapping.namespaces.get(p.m.targetElement.split(':')[0]) ?? ''))]
        .map((uri) => `${x(uri)} ${x(req.describe(req.qualified))}`).join(' ')
      const wfs2 = req.version === '2.0.0'
      async function * body (): AsyncGenerator<string> {
        if (wfs2) {
          yield '<?xml version="1.0" encoding="UTF-8"?>\n<wfs:FeatureCollection xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs/2.0"' +
            `${xmlns} numberMatched="${matched}" numberReturned="${returned}" timeStamp="${stamp}" ` +
            `xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd ${schemaLocation}">\n`
        } else {
          yield '<?xml version="1.0" encoding="UTF-8"?>\n<wfs:FeatureCollection xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs"' +
            `${xmlns} numberOfFeatures="${hits ? matched : returned}" timeStamp="${stamp}" ` +
            `xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.1.0/wfs.xsd ${schemaLocation}"`
          if (hits) { yield '/>\n'; return }
          yield '>\n<gml:featureMembers>\n'
        }
        if (!hits) {
          const w: Writer = { written: new Set() }
          for (const p of pages) for await (const f of features(w, p)) yield wfs2 ? `<wfs:member>${f}</wfs:member>\n` : `${f}\n`
        }
        yield wfs2 ? '</wfs:FeatureCollection>\n' : '</gml:featureMembers>\n</wfs:FeatureCollection>\n'
      }
      return { contentType, body: body(), matched }
    },

    /**
     * A mapped type as a map layer (WMS GetMap and GetFeatureInfo, through the render entry's vector
     * plan): one feature per mapped feature (the rows of a denormalised one together), drawn with its
     * mapped geometry, its properties by mapped XPath (an SLD's `gml:name`); the map's
     * area is a BBOX filter on the source (SQL on PostGIS and GeoPackage).
     */
    async layerData (config: StoreConfig, nativeName: string, srs: string | undefined): Promise<VectorLayerData> {
      const l = await loadedOf(config)
      const m = mappingOf(l, nativeName)
      if (!m) throw new Error(`no mapping for ${nativeName}`)
      const ctx = contextOf(l, '2.0.0', undefined)
      const src = ctx.sourceOf(m)
      const { columns, geometry: mappedGeometry } = await mappedColumns(m, src)
      const geometry = mappedGeometry?.column
      const srid = srs === undefined ? await src.srid(m.sourceType) : undefined
      const dataCrs = srs ?? (srid ? `EPSG:${srid}` : 'EPSG:4326')
      return {
        type: nativeName,
        dataCrs,
        // CQL_FILTER on a mapped layer's XPaths is not read yet: an attribute it names is unknown (a 400).
        schema: { attributes: [], crs: dataCrs },
        source: {
          async * readFeatures (q: ReadQuery): AsyncGenerator<Feature> {
            if (!geometry) return
            let n = 0
            for await (const g of groupedFeatures(ctx, m, q.bbox ? { k: 'bbox', env: q.bbox } : undefined)) {
              const row = g.rows[0]
              const geo = row.values[geometry] as Geo | null | undefined
              if (!geo) continue
              const properties: Record<string, unknown> = {}
              // Keyed as an SLD's PropertyName reaches them: the XPath without its first prefix (gml:name is `name`).
              for (const [xpath, col] of columns) if (col !== geometry) properties[xpath.slice(xpath.indexOf(':') + 1)] = row.values[col] ?? null
              yield { id: g.id, properties, geometry: q.geometryFormat === 'geojson' ? JSON.stringify(geo) : geojsonToWkb(geo) }
              if (q.limit !== undefined && ++n >= q.limit) return
            }
          }
        }
      }
    },

    /** DescribeFeatureType of a mapped type: the target schema document (the first schemaUri). */
    async describe (config: StoreConfig): Promise<{ contentType: string, body: string }> {
      const l = await loadedOf(config)
      const v32 = l.mapping.namespaces.get('gml') === GML32_NS
      const uri = l.mapping.schemaUris[0] ?? ''
      const r = resolveRef(uri, { kind: 'upload', rel: config.mainFile })
      const read = r.loc ? await readLoc(r.loc, path.join(dataDir, config.dir), cacheDir) : { problem: r.problem }
      if (read.text === undefined) throw new Error(`schema ${uri}: ${read.problem}`)
      return { contentType: v32 ? 'application/gml+xml; version=3.2' : 'text/xml; subtype=gml/3.1.1', body: read.text }
    },

    /**
     * Opens every source of a staged mapping and reads each mapping's sourceType: the problems,
     * each naming its data store (empty when all can be read), and what each mapping's source says
     * of its mapped geometry (the XPath, the CRS and the bounds, as GeoServer computes a resource's
     * native and lon/lat boxes from its data). The sources are closed after.
     */
    async checkSources (stage: string, mainFile: string): Promise<SourceCheck> {
      const problems: SourceCheck['problems'] = []
      const types: SourceCheck['types'] = []
      let l: Loaded | undefined
      try {
        const mapping = await loadMapping(stage, mainFile)
        const sources = new Map<string, RowSource | string>()
        for (const [id, decl] of mapping.stores) sources.set(id, openRowSource(decl, stage, openers))
        l = { mapping, sources, set: emptySchemaSet(), orders: new Map() }
        for (const [id, s] of sources) {
          if (typeof s === 'string') problems.push({ file: mapping.stores.get(id)!.file, element: `sourceDataStores/DataStore "${id}"`, message: s })
        }
        for (const m of mapping.mappings) {
          const s = sources.get(m.sourceDataStore)
          if (!s || typeof s === 'string') continue
          const why = await s.check(m.sourceType)
          if (why) { problems.push({ file: m.file, element: `FeatureTypeMapping (${m.targetElement})`, message: `data store "${m.sourceDataStore}" cannot be read: sourceType ${m.sourceType}: ${why}` }); continue }
          const { geometry } = await mappedColumns(m, s)
          if (!geometry) continue
          const srid = await s.srid(m.sourceType)
          const bounds = await s.bounds(m.sourceType)
          const lonLat = srid && bounds ? transformBbox(bounds, `EPSG:${srid}`, 'EPSG:4326') : undefined
          types.push({
            targetElement: m.targetElement,
            ...(m.mappingName ? { mappingName: m.mappingName } : {}),
            geometry: geometry.xpath,
            ...(srid ? { srs: `EPSG:${srid}` } : {}),
            ...(bounds ? { nativeBbox: bounds } : {}),
            ...(lonLat && lonLat.every(Number.isFinite) ? { latLonBbox: lonLat } : {})
          })
        }
      } catch (err) {
        if (!isMapwardenError(err)) throw err
        problems.push({ file: mainFile, element: '(document)', message: err.message })
      } finally {
        if (l) await closeAll(l)
      }
      return { problems, types }
    },

    /** Closes every opened source. */
    async closeAll (): Promise<void> {
      const all = [...loaded.values()]
      loaded.clear()
      for (const l of all) await l.then(closeAll, () => undefined)
    }
  }
}
export type ComplexServing = ReturnType<typeof createComplexServing>
