// {base}/rest/workspaces: params, query and the documented answers.
import { Type } from '@fastify/type-provider-typebox'
import { CreatedName, Empty, namedList, representation } from './common.js'

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

export const About = Type.Object({
  about: Type.Object({
    resource: Type.Array(Type.Object({ '@name': Type.String(), Version: Type.String(), 'Git-Revision': Type.String(), 'Build-Timestamp': Type.String() }))
  })
})

export const responses = {
  about: { 200: representation('Versions: the GeoServer REST level served, and mapwarden', About) },
  list: { 200: representation('The workspaces', WorkspaceList) },
  one: { 200: representation('The workspace', Workspace) },
  created: { 201: CreatedName },
  done: { 200: Empty }
}
