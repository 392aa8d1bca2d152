// Wire shape of a PostGIS feature type (GeoServer's XStream alias featureType): names, namespace,
// title, keywords, CRSs, both bounding boxes, the projection policy, the store link, GeoServer's
// service flags at their defaults, and the attributes of the table.
import type { FastifyRequest } from 'fastify'
import { Link, type Document, type Value } from '../infra/representation.js'
import type { Urls } from '../infra/services.js'
import type { Envelope } from '../../services/filters/tree.js'
import type { VectorFeatureType } from '../../services/vector/store.js'
import { isProjectedCode, nativeCrsText } from '../../services/vector/crs-wkt.js'
import { VIRTUAL_TABLE_KEY, virtualTableValue } from '../../services/vector/virtual-table.js'

// GeoServer's SRSConverter writes a bounding box's CRS as its code, with XStream's class="projected"
// (JSON: {"@class": "projected", "$": "EPSG:3857"}) when the CRS is projected.
const crsRef = (crs: string | undefined): Value => crs !== undefined && isProjectedCode(crs) ? { '@class': 'projected', $: crs } : crs
const envelope = (b: Envelope, crs: string | undefined): Value => ({ minx: b[0], maxx: b[2], miny: b[1], maxy: b[3], crs: crsRef(crs) })

/** nativeCRS as GeoServer's CRSConverter writes it: WKT, class="projected" for a projected CRS. */
function nativeCrsValue (c: VectorFeatureType['config']): Value {
  const t = nativeCrsText(c.nativeCRS, c.nativeWkt)
  if (!t) return undefined
  return t.projected ? { '@class': 'projected', $: t.wkt } : t.wkt
}

/** `/rest/workspaces/<ws>/featuretypes` and a store's list (PostGIS or app-schema): names with links. */
export function featureTypeListDoc (req: FastifyRequest, urls: Urls, fts: Array<Pick<VectorFeatureType, 'workspace' | 'store' | 'name'>>): Document {
  return {
    featureTypes: {
      featureType: fts.map((ft) => ({
        name: ft.name,
        href: new Link(urls.rest(req, 'workspaces', ft.workspace, 'datastores', ft.store, 'featuretypes', ft.name), 'application/atom+xml')
      }))
    }
  }
}

export function vectorFeatureTypeDoc (req: FastifyRequest, urls: Urls, ft: VectorFeatureType): Document {
  const c = ft.config
  const nativeCrs = c.projectionPolicy === 'FORCE_DECLARED' ? ft.srs : c.nativeCRS
  return {
    featureType: {
      name: ft.name,
      nativeName: ft.nativeName,
      namespace: { name: ft.workspace, href: new Link(urls.rest(req, 'namespaces', ft.workspace)) },
      title: ft.title,
      abstract: c.abstract,
      keywords: { string: c.keywords },
      nativeCRS: nativeCrsValue(c),
      srs: ft.srs,
      nativeBoundingBox: c.nativeBbox ? envelope(c.nativeBbox, nativeCrs) : undefined,
      latLonBoundingBox: ft.latLonBbox ? envelope(ft.latLonBbox, 'EPSG:4326') : undefined,
      projectionPolicy: c.projectionPolicy,
      enabled: c.enabled,
      // An SQL view's definition, as GeoServer's XStreamPersister writes a VirtualTable.
      metadata: c.virtualTable ? { entry: [{ '@key': VIRTUAL_TABLE_KEY, virtualTable: virtualTableValue(c.virtualTable) as Value }] } : undefined,
      store: {
        '@class': 'dataStore',
        name: `${ft.workspace}:${ft.store}`,
        href: new Link(urls.rest(req, 'workspaces', ft.workspace, 'datastores', ft.store))
      },
      serviceConfiguration: false,
      simpleConversionEnabled: false,
      maxFeatures: 0,
      numDecimals: 0,
      padWithZeros: false,
      forcedDecimal: false,
      overridingServiceSRS: false,
      skipNumberMatched: false,
      circularArcPresent: false,
      attributes: {
        attribute: c.attributes.map((a) => ({
          name: a.name,
          minOccurs: a.minOccurs,
          maxOccurs: a.maxOccurs,
          nillable: a.nillable,
          binding: a.binding,
          length: a.length
        }))
      }
    }
  }
}
