// What the WFS needs of app-schema stores: a stored mapping loaded once per version of its files
// (mappings, opened sources, the target schemas' property order), GetFeature of mapped types as
// GML of the target schema's version (3.2 where the mapping binds gml to GML 3.2, else 3.1.1) with
// the mapping's namespaces, streamed, paged, resultType=hits; DescribeFeatureType as the target
// schema itself. Also the upload's check that every source of a mapping can be read.
import path from 'node:path'
import { isNorthingFirst, normalizeCrs } from '../render/crs.js'
import { escapeXml } from '../xml-escape.js'
import { isMapwardenError } from '../errors.js'
import { attributesOf, emptySchemaSet, loadSchema, qkey, type SchemaSet } from './schemas.js'
import { readLoc, resolveRef } from './references.js'
import { loadMapping, type LoadedMapping, type TypeMapping } from './type-mapping.js'
import { openRowSource, type Openers, type RowSource } from './row-sources.js'
import { countFeatures, encodedFeatures, type ExecContext, type Writer } from './complex-features.js'
import type { StoreConfig } from './store.js'
import { mappedFilter, type MappedQueryFilter } from './mapped-filter.js'

export const GML32_NS = 'http://www.opengis.net/gml/3.2'
const x = (s: string) => escapeXml(s)
const AS_NS = 'http://www.geotools.org/app-schema'
/** Prefixes the collection binds itself. */
const RESERVED = new Set(['wfs', 'xsi', 'xlink', 'gml'])

interface Loaded {
  mapping: LoadedMapping
  sources: Map<string, RowSource | string>
  set: SchemaSet
  orders: Map<string, string[] | undefined>
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
    const orders = new Map<string, string[] | undefined>()
    for (const m of mapping.mappings) {
      const [p, local] = m.targetElement.includes(':') ? m.targetElement.split(':') : ['', m.targetElement]
      const decl = set.elements.get(qkey(mapping.namespaces.get(p) ?? '', local))
      orders.set(m.targetElement, decl ? attributesOf(set, decl).map((a) => a.name) : undefined)
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
    l.mapping.mappings.find((m) => !m.mappingName && m.targetElement.slice(m.targetElement.indexOf(':') + 1) === nativeName)

  const contextOf = (l: Loaded, version: ComplexRequest['version'], srs: string | undefined): ExecContext => {
    const v32 = l.mapping.namespaces.get('gml') === GML32_NS
    const code = srs ? normalizeCrs(srs) : undefined
    const n = code ? /^EPSG:(\d+)$/.exec(code)?.[1] : undefined
    // The CRS name of the GML's version, lat/lon order where the CRS says so (as the simple WFS writes them).
    const srsName = n ? (v32 ? `urn:ogc:def:crs:EPSG::${n}` : version === '1.0.0' ? `http://www.opengis.net/gml/srs/epsg.xml#${n}` : `urn:x-ogc:def:crs:EPSG:${n}`) : undefined
    return {
      mapping: l.mapping,
      sourceOf: (m) => {
        const s = l.sources.get(m.sourceDataStore)
        if (!s || typeof s === 'string') throw new Error(`data store "${m.sourceDataStore}" of mapping ${m.key}: ${s ?? 'not declared'}`)
        return s
      },
      order: (el) => l.orders.get(el),
      v32,
      ...(srsName ? { srsName } : {}),
      latFirst: srsName !== undefined && version !== '1.0.0' && isNorthingFirst(code!)
    }
  }

  return {
    /** The GML of the mapped features of `types` (one query each), as a stream of strings. */
    async getFeature (types: ComplexQueryType[], req: ComplexRequest): Promise<{ contentType: string, body: AsyncIterable<string>, matched: number }> {
      const plans = []
      const stats = { queries: 0 }
      for (const t of types) {
        const l = await loadedOf(t.store.config)
        const m = mappingOf(l, t.nativeName)
        if (!m) throw new Error(`no mapping for ${t.nativeName}`)
        // The declared SRS, else the one of the mapping's source geometry (a PostGIS column's SRID).
        const src = l.sources.get(m.sourceDataStore)
        const srid = t.srs === undefined && src && typeof src !== 'string' ? await src.srid(m.sourceType) : undefined
        const ctx = contextOf(l, req.version, t.srs ?? (srid ? `EPSG:${srid}` : undefined))
        const srs = t.srs ?? (srid ? `EPSG:${srid}` : undefined)
        const filter = await mappedFilter(m, ctx, t.filters, t.ids, srs ?? 'EPSG:4326')
        plans.push({ t, l, m, ctx, filter, matched: await countFeatures(ctx, m, filter, stats) })
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
      const schemaLocation = [...new Set(pages.map((p) => p.l.mapping.namespaces.get(p.m.targetElement.split(':')[0]) ?? ''))]
        .map((uri) => `${x(uri)} ${x(req.describe(req.qualified))}`).join(' ')
      const stamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
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
          for (const p of pages) {
            for await (const f of encodedFeatures(p.ctx, p.m, p.offset, p.limit, w, stats, p.filter)) yield wfs2 ? `<wfs:member>${f}</wfs:member>\n` : `${f}\n`
          }
        }
        yield wfs2 ? '</wfs:FeatureCollection>\n' : '</gml:featureMembers>\n</wfs:FeatureCollection>\n'
      }
      return { contentType: v32 ? 'application/gml+xml; version=3.2' : 'text/xml; subtype=gml/3.1.1', body: body(), matched }
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
     * each naming its data store (empty when all can be read). The sources are closed after.
     */
    async checkSources (stage: string, mainFile: string): Promise<Array<{ file: string, element: string, message: string }>> {
      const problems: Array<{ file: string, element: string, message: string }> = []
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
          if (why) problems.push({ file: m.file, element: `FeatureTypeMapping (${m.targetElement})`, message: `data store "${m.sourceDataStore}" cannot be read: sourceType ${m.sourceType}: ${why}` })
        }
      } catch (err) {
        if (!isMapwardenError(err)) throw err
        problems.push({ file: mainFile, element: '(document)', message: err.message })
      } finally {
        if (l) await closeAll(l)
      }
      return problems
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
