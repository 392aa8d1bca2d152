// {base}/rest/settings, settings/contact, reload and reset: the documented shapes.
import { Type } from '@fastify/type-provider-typebox'
import { BooleanText, Empty, field, fields, IntegerText, representation, rootBody } from './common.js'
import { CONTACT_FIELDS } from '../services/settings/settings.js'

const contactProps = Object.fromEntries(CONTACT_FIELDS.map((f) => [f, Type.Optional(Type.String())]))
export const Contact = Type.Object({ contact: Type.Object(contactProps) })
export const Global = Type.Object({
  global: Type.Object({
    settings: Type.Object({
      contact: Type.Object(contactProps),
      charset: Type.String(),
      numDecimals: Type.Integer(),
      onlineResource: Type.Optional(Type.String()),
      proxyBaseUrl: Type.Optional(Type.String()),
      verbose: Type.Boolean(),
      verboseExceptions: Type.Boolean()
    }),
    updateSequence: Type.Integer()
  })
})

const contactFields = Object.fromEntries(CONTACT_FIELDS.map((f) => [f, field(`${f} ("" clears it)`, Type.String())]))

/** PUT settings/contact: `{ contact: {...} }`, partial. */
export const ContactBody = rootBody(['contact'], fields(contactFields, 'Fields not sent keep their value; other fields are refused by name'))

/** PUT settings: `{ global: { settings: {...} } }`, partial. */
export const GlobalBody = rootBody(['global'], fields({
  settings: field('charset, numDecimals (0-17), onlineResource, proxyBaseUrl (an http(s) URL that replaces http(s)://host{base} in every URL written; "" removes it), verbose, verboseExceptions, contact'),
  updateSequence: field('Read-only: accepted and ignored', Type.Integer())
}, 'Fields not sent keep their value; other fields are refused by name'))

export const responses = {
  global: { 200: representation('The global settings', Global) },
  contact: { 200: representation('The global contact information', Contact) },
  done: { 200: Empty }
}

// {base}/rest/services/{wms,wmts,wfs}/settings and .../workspaces/<ws>/settings: WMSInfo, WMTSInfo, WFSInfo.
const serviceFields = {
  enabled: field('false: every request of the service answers as a disabled service', BooleanText),
  name: field('The service name (in the disabled-service message)', Type.String()),
  title: field('Title of the capabilities ("" clears)', Type.String()),
  maintainer: field('Kept and read back', Type.String()),
  abstrct: field('Abstract of the capabilities (GeoServer\'s spelling; "" clears)', Type.String()),
  accessConstraints: field('AccessConstraints of the capabilities', Type.String()),
  fees: field('Fees of the capabilities', Type.String()),
  versions: field('Read-only: the versions served, accepted back as read'),
  keywords: field('Keywords of the capabilities: { "string": [...] }'),
  citeCompliant: field('false only', BooleanText),
  onlineResource: field('http(s) URL written as the service\'s OnlineResource (WMS) or ProviderSite (WMTS); "" clears', Type.String()),
  schemaBaseURL: field('http://schemas.opengis.net only', Type.String()),
  verbose: field('false only', BooleanText),
  id: field('Read-only: accepted and ignored'),
  workspace: field('Read-only: accepted and ignored (the path names the workspace)'),
  metadataLink: field('Read-only: accepted and ignored')
}
const wmsFields = {
  ...serviceFields,
  srs: field('The limited SRS list of the capabilities: { "string": ["4326", "EPSG:3035", ...] }; empty: every code (GetMap takes every code either way)'),
  bboxForEachCRS: field('With a limited SRS list: a BoundingBox in each of its CRSs for every layer', BooleanText),
  watermark: field('enabled (false only), position, transparency (0-100)'),
  interpolation: field('Nearest only (the renderer resamples by nearest neighbour)', Type.String()),
  maxBuffer: field('0 only', IntegerText),
  maxRequestMemory: field('KiB a GetMap may use (its RGBA surface, 4 bytes a pixel); 0: no limit', IntegerText),
  maxRenderingTime: field('0 only (no per-request time limit in the renderer)', IntegerText),
  maxRenderingErrors: field('0 only', IntegerText)
}
const wfsFields = {
  ...serviceFields,
  serviceLevel: field('BASIC, TRANSACTIONAL or COMPLETE', Type.String()),
  maxFeatures: field('Most features a GetFeature answers', IntegerText),
  featureBounding: field('Bounds on each feature', BooleanText),
  canonicalSchemaLocation: field('Canonical schema locations', BooleanText),
  encodeFeatureMember: field('featureMember rather than featureMembers', BooleanText),
  hitsIgnoreMaxFeatures: field('resultType=hits counts past maxFeatures', BooleanText)
}
export const ServiceBodies = {
  wms: rootBody(['wms'], fields(wmsFields, 'Fields not sent keep their value; other fields, and values mapwarden cannot apply, are refused by name')),
  wmts: rootBody(['wmts'], fields(serviceFields, 'Fields not sent keep their value; other fields, and values mapwarden cannot apply, are refused by name')),
  wfs: rootBody(['wfs'], fields(wfsFields, 'Fields not sent keep their value; other fields, and values mapwarden cannot apply, are refused by name'))
}
const serviceDoc = (root: string) => Type.Object({ [root]: Type.Object({ enabled: Type.Boolean(), name: Type.String(), title: Type.Optional(Type.String()) }, { additionalProperties: true }) })
export const serviceResponses = {
  wms: { 200: representation('The WMS settings', serviceDoc('wms')) },
  wmts: { 200: representation('The WMTS settings', serviceDoc('wmts')) },
  wfs: { 200: representation('The WFS settings', serviceDoc('wfs')) }
}
