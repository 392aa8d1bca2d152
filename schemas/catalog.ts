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

export const responses = {
  about: { 200: representation('Versions: the GeoServer REST level served, and mapwarden', About) },
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
