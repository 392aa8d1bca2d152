// {base}/rest/workspaces: params, query and the documented answers.
import { Type } from '@fastify/type-provider-typebox'
import { CreatedName, Empty, field, fields, namedList, OneOf, representation, rootBody } from './common.js'

export { WorkspaceParams, RecurseQuery } from './common.js'

export const WorkspaceList = namedList('workspaces', 'workspace')
export const Workspace = Type.Object({
  workspace: Type.Object({
    name: Type.String(),
    isolated: Type.Boolean(),
    dataStores: Type.String({ description: 'Link' }),
    coverageStores: Type.String({ description: 'Link' }),
    wmsStores: Type.String({ description: 'Link' }),
    wmtsStores: Type.String({ description: 'Link' })
  })
})

export const NamespaceList = namedList('namespaces', 'namespace')
export const Namespace = Type.Object({
  namespace: Type.Object({ prefix: Type.String(), uri: Type.String(), isolated: Type.Boolean() })
})
export const NamespaceParams = Type.Object({ prefix: Type.String({ minLength: 1 }) })
export const DefaultQuery = Type.Object({ default: Type.Optional(Type.Boolean({ description: 'true: the new workspace becomes the default workspace' })) })

export const About = Type.Object({
  about: Type.Object({
    resource: Type.Array(Type.Object({ '@name': Type.String(), Version: Type.String(), 'Git-Revision': Type.String(), 'Build-Timestamp': Type.String() }))
  })
})

export const Manifest = Type.Object({
  about: Type.Union([Type.Literal(''), Type.Object({ resource: Type.Array(Type.Object({ '@name': Type.String() }, { additionalProperties: Type.String() })) })])
})
const regex = (what: string) => Type.Optional(Type.String({ description: `A regular expression (Java's whole-string match) ${what}` }))
export const ManifestQuery = Type.Object({
  manifest: regex('that resource names match'),
  from: Type.Optional(Type.String({ description: 'With `to`: resources named from this name on (included)' })),
  to: Type.Optional(Type.String({ description: 'With `from`: resources named up to this name (included)' })),
  key: regex('that one attribute name of a resource matches (with `value`: that attribute\'s value matches value)'),
  value: regex('that one attribute value of a resource matches')
})
const ModuleStatusShape = Type.Object({
  module: Type.String(),
  name: Type.String(),
  component: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  isEnabled: Type.Boolean(),
  isAvailable: Type.Boolean(),
  message: Type.Optional(Type.String())
})
export const Statuses = Type.Object({ statuss: Type.Object({ status: Type.Array(ModuleStatusShape) }) })
export const OneStatus = Type.Object({ status: ModuleStatusShape })
const MetricShape = Type.Object({
  available: Type.Boolean(),
  description: Type.String(),
  name: Type.String({ description: 'GeoServer\'s MetricInfo name: OPERATING_SYSTEM, SYSTEM_UPTIME, CPU_LOAD, MEMORY_USED, ...' }),
  unit: Type.String(),
  category: Type.String({ description: 'SYSTEM, CPU, MEMORY, SWAP, FILE_SYSTEM, NETWORK, SENSORS or GEOSERVER' }),
  identifier: Type.String(),
  priority: Type.Integer(),
  value: Type.String({ description: 'The value as text; NOT AVAILABLE when it cannot be read here' })
})
export const SystemMetrics = Type.Object({ metrics: Type.Object({ metric: Type.Array(MetricShape) }) })
export const StatusParams = Type.Object({ module: Type.String({ minLength: 1 }) })
export const Fonts = Type.Union([
  Type.Object({ fonts: Type.Array(Type.String()) }, { description: 'JSON' }),
  Type.Object({ root: Type.Object({ fonts: Type.Object({ entry: Type.Array(Type.String()) }) }) }, { description: 'XML: <root><fonts><entry>...' })
])

export const responses = {
  about: { 200: representation('Versions: the GeoServer REST level served, and mapwarden', About) },
  manifest: { 200: representation('The npm packages installed with mapwarden, and mapwarden itself (GeoServer: the jars\' manifests)', Manifest) },
  statuses: { 200: representation('The state of each component of mapwarden', Statuses) },
  status: { 200: representation('The state of one component', OneStatus) },
  systemStatus: { 200: representation('System metrics (GeoServer\'s system-status module), measured now', SystemMetrics) },
  fonts: { 200: representation('The font families the renderer finds (fontconfig)', Fonts) },
  list: { 200: representation('The workspaces', WorkspaceList) },
  one: { 200: representation('The workspace', Workspace) },
  namespaces: { 200: representation('The namespaces (one per workspace)', NamespaceList) },
  namespace: { 200: representation('The namespace', Namespace) },
  created: { 201: CreatedName },
  done: { 200: Empty }
}

/** POST and PUT: `{ workspace: { name, isolated } }`; the links of a GET may be sent back (ignored). */
export const WorkspaceBody = rootBody(['workspace'], fields({
  name: field('The workspace name (POST: required; PUT: renames)', Type.String({ minLength: 1 })),
  isolated: field('Isolated workspace: true or false ("" is false)', Type.Union([Type.Boolean(), OneOf(['true', 'false', ''])]))
}, 'Other fields are refused by name; dataStores, coverageStores, wmsStores and wmtsStores (links) are accepted and ignored'))

/** POST and PUT: `{ namespace: { prefix, uri, isolated } }`. */
export const NamespaceBody = rootBody(['namespace'], fields({
  prefix: field('The prefix, also the name of its workspace (POST: required; PUT: cannot change; PUT on default: the new default)', Type.String({ minLength: 1 })),
  uri: field('The namespace URI (POST: required); no two namespaces share one', Type.String({ minLength: 1 })),
  isolated: field('Isolated (its workspace\'s flag): true or false ("" is false)', Type.Union([Type.Boolean(), OneOf(['true', 'false', ''])]))
}, 'Other fields are refused by name'))
