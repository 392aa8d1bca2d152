// {base}/rest/workspaces: GeoServer's WorkspaceController shapes.
import type { FastifyRequest } from 'fastify'
import { WorkspaceParams as WsParams, RecurseQuery, WorkspaceBody, DefaultQuery, responses } from '../../schemas/catalog.js'
import type { TypedApp } from '../infra/routes.js'
import { Link, type Document } from '../infra/representation.js'
import { DEFAULT, type Workspace } from '../../services/catalog/workspaces.js'
import { bodyRoot, suffixed } from '../infra/routes.js'
import { WorkspaceNotFound } from '../../services/errors.js'
import type { RootFields } from '../../schemas/common.js'

type WorkspaceFields = RootFields<typeof WorkspaceBody>

export default async function workspaces (app: TypedApp) {
  const { workspaces: service, urls } = app

  const one = (req: FastifyRequest, ws: Workspace): Document => ({
    workspace: {
      name: ws.name,
      isolated: ws.isolated,
      dataStores: new Link(urls.rest(req, 'workspaces', ws.name, 'datastores')),
      coverageStores: new Link(urls.rest(req, 'workspaces', ws.name, 'coveragestores')),
      wmsStores: new Link(urls.rest(req, 'workspaces', ws.name, 'wmsstores')),
      wmtsStores: new Link(urls.rest(req, 'workspaces', ws.name, 'wmtsstores'))
    }
  })

  for (const url of suffixed('/workspaces')) {
    app.get(url, { schema: { summary: 'List workspaces', response: responses.list } }, async (req, reply) => {
      const list = await service.list() // the same array until a workspace changes
      return reply.cachedResource(list, () => ({
        workspaces: {
          workspace: list.map((ws) => ({ name: ws.name, href: new Link(urls.rest(req, 'workspaces', ws.name), 'application/atom+xml') }))
        }
      }))
    })
    app.post(url, { schema: { summary: 'Create a workspace and its namespace (201, body = its name; default=true: it becomes the default)', querystring: DefaultQuery, body: WorkspaceBody, response: responses.created } }, async (req, reply) => {
      const ws = await service.create(bodyRoot<WorkspaceFields>(req.body, 'workspace'), req.query.default === true)
      return reply.code(201).header('Location', urls.rest(req, 'workspaces', ws.name)).type('text/plain').send(ws.name)
    })
  }

  // GeoServer's `default`: the default workspace (404 while there is none); a PUT chooses another.
  for (const url of suffixed('/workspaces/' + DEFAULT)) {
    app.get(url, { schema: { summary: 'The default workspace', response: responses.one } }, async (req, reply) => {
      const ws = await service.getDefault()
      if (!ws) throw WorkspaceNotFound(DEFAULT)
      return reply.resource(one(req, ws))
    })
    app.put(url, { schema: { summary: 'Choose the default workspace (the body names it)', body: WorkspaceBody, response: responses.done } }, async (req, reply) => {
      await service.setDefault(bodyRoot<WorkspaceFields>(req.body, 'workspace'))
      return reply.code(200).send()
    })
  }

  app.get('/workspaces/:ws', { schema: { summary: 'A workspace', params: WsParams, response: responses.one } }, async (req, reply) => {
    const { ws } = req.params
    return reply.resource(one(req, await service.get(ws)))
  })

  app.put('/workspaces/:ws', { schema: { summary: 'Rename or update a workspace', params: WsParams, body: WorkspaceBody, response: responses.done } }, async (req, reply) => {
    const { ws } = req.params
    await service.update(ws, bodyRoot<WorkspaceFields>(req.body, 'workspace'))
    return reply.code(200).send()
  })

  app.delete('/workspaces/:ws', { schema: { summary: 'Delete a workspace (recurse=true: with its content)', params: WsParams, querystring: RecurseQuery, response: responses.done } }, async (req, reply) => {
    const { ws } = req.params
    await service.remove(ws, req.query.recurse === true)
    return reply.code(200).send()
  })
}

