// Wire shapes of app-schema stores and feature types (GeoServer's XStream aliases: dataStore,
// featureType; lists dataStores/featureTypes with atom+xml links).
import type { FastifyRequest } from 'fastify'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { Link, type Document, type Value } from '../infra/representation.js'
import { zipStream } from '../infra/zip-stream.js'
import type { Urls } from '../infra/services.js'
import type { FeatureTypeRow, StoreRow } from '../../services/appschema/store.js'
import type { Bbox } from '../../services/appschema/properties.js'

export function dataStoreListDoc (req: FastifyRequest, urls: Urls, ws: string, names: string[]): Document {
  return {
    dataStores: {
      dataStore: names.map((name) => ({ name, href: new Link(urls.rest(req, 'workspaces', ws, 'datastores', name), 'application/atom+xml') }))
    }
  }
}

export function dataStoreDoc (req: FastifyRequest, urls: Urls, row: StoreRow): Document {
  const c = row.config
  return {
    dataStore: {
      name: row.name,
      type: row.type,
      enabled: row.enabled,
      workspace: { name: row.workspace, href: new Link(urls.rest(req, 'workspaces', row.workspace)) },
      connectionParameters: {
        entry: [
          { '@key': 'dbtype', $: 'app-schema' },
          { '@key': 'namespace', $: c.namespace },
          { '@key': 'url', $: c.url }
        ]
      },
      // XStream writes `__default`; Jettison's JSON drops one underscore (spec 0.3).
      [req.format === 'json' ? '_default' : '__default']: false,
      featureTypes: new Link(urls.rest(req, 'workspaces', row.workspace, 'datastores', row.name, 'featuretypes'))
    }
  }
}

/** `list=available|all`: GeoServer's string list, `featureTypeName` items in XML, `string` in JSON. */
export function featureTypeNamesDoc (req: FastifyRequest, names: string[]): Document {
  return { list: { [req.format === 'json' ? 'string' : 'featureTypeName']: names } }
}

function envelope (b: Bbox, crs: string): Value {
  return { minx: b[0], maxx: b[2], miny: b[1], maxy: b[3], crs }
}

export function featureTypeDoc (req: FastifyRequest, urls: Urls, ft: FeatureTypeRow): Document {
  const native = ft.config.nativeBbox
  return {
    featureType: {
      name: ft.name,
      nativeName: ft.nativeName,
      namespace: { name: ft.workspace, href: new Link(urls.rest(req, 'namespaces', ft.workspace)) },
      title: ft.title,
      keywords: { string: ['features', ft.nativeName] },
      srs: ft.srs,
      nativeBoundingBox: native && ft.srs ? envelope(native, ft.srs) : undefined,
      latLonBoundingBox: ft.bbox ? envelope(ft.bbox, 'EPSG:4326') : undefined,
      projectionPolicy: ft.srs ? 'FORCE_DECLARED' : undefined,
      enabled: true,
      store: {
        '@class': 'dataStore',
        name: `${ft.workspace}:${ft.store}`,
        href: new Link(urls.rest(req, 'workspaces', ft.workspace, 'datastores', ft.store))
      },
      attributes: {
        attribute: ft.config.attributes.map((a) => ({
          name: a.name,
          minOccurs: a.minOccurs,
          maxOccurs: a.maxOccurs,
          nillable: a.nillable,
          binding: a.binding
        }))
      }
    }
  }
}

/** The stored files as a ZIP stream, names relative to the store directory. */
export function zipOf (dir: string, files: string[]): Readable {
  return zipStream(files.map((f) => ({ name: f, path: path.join(dir, ...f.split('/')) })))
}
