// The Web Feature Service (WFS 2.0.0, 1.1.0 and 1.0.0, transactional) over the catalog's vector
// layers, assembled from its operations: GetCapabilities and the stored-query listings
// (capabilities.ts), DescribeFeatureType (describe.ts), GetFeature, GetPropertyValue and
// GetFeatureById (get-feature.ts). They share one context (wfs-context.ts): every feature type is
// read under the layer rules and through its store's VectorSource. Requests come as KVP
// (request.ts) or XML (xml-request.ts) and meet the same code; answers are a content type and a
// body, a stream for features. Transaction (transaction.ts) edits PostGIS and GeoPackage layers
// under the write rules while the settings' serviceLevel is TRANSACTIONAL or COMPLETE; LockFeature and
// GetFeatureWithLock (locks.ts) while it is COMPLETE.
import type { Principal } from '../auth/authenticator.js'
import { parseXmlElements } from '../files/xml.js'
import { WfsInvalidParameter, WfsOperationNotSupported, WfsServiceDisabled } from '../errors.js'
import { capabilities, CAPABILITIES_TYPE, describeStoredQueries, listStoredQueries, type ServiceDescription } from './capabilities.js'
import { DESCRIBE_TYPES, featureTypeSchema, importingSchema } from './describe.js'
import { featureOperations, type FeatureAnswer } from './get-feature.js'
import {
  capabilitiesVersion, featureRequest, list, lockParams, negotiate, operationOf, requestVersion, type Kvp, type LockParams, type Operation, type WfsVersion
} from './request.js'
import { parseXmlRequest } from './xml-request.js'
import { transactionOperation } from './transaction.js'
import { lockOperations, lockResponse } from './locks.js'
import { createWfsContext, maxFeaturesOf, type ServedType, type WfsDeps, type Where } from './wfs-context.js'

export type { WfsDeps, Where } from './wfs-context.js'
export type { Kvp, WfsVersion } from './request.js'

export interface WfsAnswer {
  contentType: string
  disposition?: string
  body: string | AsyncIterable<string | Buffer>
}

export interface WfsUrls {
  /** The URL of this service endpoint, ending in `?`. */
  service: string
  /** This KVP request from another startIndex (paging links); undefined for POST. */
  page?: (startIndex: number) => string
}

export function createWfsService (deps: WfsDeps) {
  const ctx = createWfsContext(deps)
  const features = featureOperations(ctx)
  const locks = lockOperations({ locks: deps.locks, now: deps.now ?? Date.now }, (req, principal, where, paged) => features.lockTargets(req, principal, where, paged))
  const transaction = transactionOperation(ctx, locks)
  const level = (where: Where) => deps.serviceSettings.get('wfs', where.workspace).serviceLevel ?? 'BASIC'
  /** Whether the WFS (a workspace's own settings on its virtual service) takes transactions: serviceLevel TRANSACTIONAL or COMPLETE. */
  const transactional = (where: Where) => level(where) !== 'BASIC'
  /** Whether it takes locks: serviceLevel COMPLETE. */
  const locking = (where: Where) => level(where) === 'COMPLETE'

  async function describe (version: WfsVersion, kvp: Kvp, principal: Principal | undefined, where: Where, url: string): Promise<WfsAnswer> {
    const names = list(kvp.TYPENAMES ?? kvp.TYPENAME)
    const asked = names.length > 0
      ? await Promise.all(names.map((n) => ctx.readable(n, principal, where)))
      : await ctx.listed(principal, where)
    // An app-schema type is described by its own target schema, alone; the schema of every type
    // (no type name) is that of the simple ones.
    if (names.length > 1 && asked.some((t) => t.complex)) throw WfsInvalidParameter('typeName', JSON.stringify(names.join(',').slice(0, 80)), 'describe an app-schema type alone: its schema is its mapping\'s target schema')
    const types = names.length === 1 ? asked : asked.filter((t) => !t.complex)
    const byNs = new Map<string, ServedType[]>()
    for (const t of types) byNs.set(t.prefix, [...(byNs.get(t.prefix) ?? []), t])
    const groups = [...byNs.values()]
    // An app-schema type is described by its target schema, as GeoServer answers it.
    if (names.length === 1 && types[0].complex && deps.complex) return await deps.complex.describe(types[0].store.config as never)
    const f = kvp.OUTPUTFORMAT?.trim()
    if (f && !/^(text\/xml|application\/gml\+xml|XMLSCHEMA)/i.test(f)) throw WfsInvalidParameter('outputFormat', JSON.stringify(f.slice(0, 60)), `supported: ${DESCRIBE_TYPES[version]}`)
    const body = groups.length === 0
      ? featureTypeSchemaEmpty()
      : groups.length === 1 ? featureTypeSchema(groups[0], version) : importingSchema(groups, version, url)
    return { contentType: DESCRIBE_TYPES[version], body }
  }

  /**
   * What the capabilities say of the service: the WFS settings, a workspace's own on its virtual
   * service; a virtual service without its own settings names its workspace after the global title.
   */
  function description (where: Where): ServiceDescription {
    const own = where.workspace !== undefined ? deps.serviceSettings.local('wfs', where.workspace) : undefined
    const s = own ?? deps.serviceSettings.get('wfs')
    const title = s.title ?? ''
    return {
      title: where.workspace !== undefined && own === undefined ? `${title}: workspace ${where.workspace}` : title,
      keywords: s.keywords,
      ...(s.abstrct !== undefined ? { abstract: s.abstrct } : {}),
      ...(s.fees !== undefined ? { fees: s.fees } : {}),
      ...(s.accessConstraints !== undefined ? { accessConstraints: s.accessConstraints } : {}),
      ...(s.onlineResource !== undefined ? { onlineResource: s.onlineResource } : {})
    }
  }

  const featureLinks = (urls: WfsUrls, version: WfsVersion) => ({
    ...(urls.page ? { page: urls.page } : {}),
    describe: (names: string[]) => `${urls.service}service=WFS&version=${version}&request=DescribeFeatureType&typeName=${names.map(encodeURIComponent).join(',')}`
  })

  return {
    /** Refuses every request while the WFS (of this workspace, when it has its own settings) is disabled, as GeoServer's DisabledServiceCheck. */
    checkEnabled (where: Where): void {
      const s = deps.serviceSettings.get('wfs', where.workspace)
      if (!s.enabled) throw WfsServiceDisabled(s.name)
    },

    /** The version an exception report about this request is written in. */
    versionOf (kvp: Kvp, xmlText?: string): WfsVersion {
      const fromXml = xmlText ? rootVersion(xmlText) : undefined
      const v = fromXml ?? kvp.VERSION ?? kvp.ACCEPTVERSIONS?.split(',')[0]
      return (v && negotiate(v)) || '2.0.0'
    },

    /** One WFS request, KVP or (POST) XML text. */
    async handle (kvp: Kvp, xmlText: string | undefined, principal: Principal | undefined, where: Where, urls: WfsUrls): Promise<WfsAnswer> {
      let op: Operation
      let version: WfsVersion
      let q = kvp
      let feature
      let root
      let lock: LockParams | undefined
      if (xmlText !== undefined) {
        const r = await parseXmlRequest(xmlText)
        op = r.operation
        version = r.version
        q = r.kvp
        feature = r.feature
        root = r.root
        lock = r.lock
      } else {
        op = operationOf(kvp.REQUEST)
        version = op === 'GetCapabilities' ? capabilitiesVersion(kvp) : requestVersion(kvp)
        if (op === 'LockFeature' || op === 'GetFeatureWithLock') lock = lockParams(kvp.EXPIRY, kvp.LOCKACTION, version)
      }
      switch (op) {
        case 'GetCapabilities': {
          const types = await ctx.listed(principal, where)
          return { contentType: CAPABILITIES_TYPE, body: capabilities({ version, types, url: urls.service, transactional: transactional(where), locking: locking(where), ...(where.workspace ? { workspace: where.workspace } : {}), maxFeatures: maxFeaturesOf(deps, where), service: description(where) }) }
        }
        case 'DescribeFeatureType': return await describe(version, q, principal, where, urls.service)
        case 'ListStoredQueries': return { contentType: 'application/xml', body: listStoredQueries(await ctx.listed(principal, where)) }
        case 'DescribeStoredQueries': return { contentType: 'application/xml', body: describeStoredQueries(await ctx.listed(principal, where)) }
        case 'GetFeature':
        case 'GetPropertyValue': {
          const req = feature ?? await featureRequest(kvp, version, (text) => parseXmlElements(text))
          if (op === 'GetPropertyValue') {
            if (req.version !== '2.0.0') throw WfsInvalidParameter('version', req.version, 'GetPropertyValue is a WFS 2.0.0 operation')
            return await features.getPropertyValue(req, principal, where)
          }
          const a: FeatureAnswer = await features.getFeature(req, principal, where, featureLinks(urls, req.version))
          return a
        }
        case 'LockFeature':
        case 'GetFeatureWithLock': {
          if (!locking(where)) throw WfsOperationNotSupported(op, `the WFS settings' serviceLevel is ${level(where)} (locks need COMPLETE)`)
          const req = feature ?? await featureRequest(kvp, version, (text) => parseXmlElements(text))
          if (op === 'LockFeature') return { contentType: 'text/xml', body: lockResponse(version, await locks.lock(req, lock!, principal, where, false)) }
          if (req.resultType === 'hits') throw WfsInvalidParameter('resultType', 'hits', 'GetFeatureWithLock locks the features it returns (resultType=results)')
          if (req.outputFormat === 'json' || req.outputFormat === 'csv') throw WfsInvalidParameter('outputFormat', req.outputFormat, 'GetFeatureWithLock answers GML, whose collection carries the lockId')
          const held = await locks.lock(req, lock!, principal, where, true)
          return await features.getFeature(req, principal, where, featureLinks(urls, req.version), held.lockId)
        }
        case 'Transaction': {
          if (!root) throw WfsOperationNotSupported('Transaction', 'a Transaction is a wfs:Transaction document sent by POST')
          if (!transactional(where)) throw WfsOperationNotSupported('Transaction', 'the WFS settings\' serviceLevel is BASIC (read-only)')
          return await transaction(version, root, principal, where)
        }
      }
    }
  }
}

/**
 * The `version` attribute of a POSTed request's root element: past the XML declaration (whose
 * own `version="1.0"` is XML's, not WFS's), comments, processing instructions and a DOCTYPE.
 */
export function rootVersion (xml: string): string | undefined {
  const prolog = /^(?:\uFEFF|\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>)*/i.exec(xml)
  const root = /^<[^\s/>!?]+((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/.exec(xml.slice(prolog?.[0].length ?? 0))
  const version = root ? /(?:^|\s)version\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(root[1]) : undefined
  return version ? (version[1] ?? version[2]) : undefined
}

function featureTypeSchemaEmpty (): string {
  return '<?xml version="1.0" encoding="UTF-8"?>\n<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"/>\n'
}

export type WfsService = ReturnType<typeof createWfsService>
