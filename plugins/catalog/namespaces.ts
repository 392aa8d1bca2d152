// {base}/rest/namespaces: GeoServer's NamespaceController. A namespace is its workspace's other face
// (prefix = the workspace's name): creating or deleting one creates or deletes the other, and
// `default` names the default namespace, which is the default workspace's.
import type { FastifyRequest } from 'fastify'
import { NamespaceBody, NamespaceParams, responses } from '../../schemas/catalog.js'
import type { TypedApp } from '../infra/routes.js'
import { bodyRoot, refuseMethods, suffixed } from '../infra/routes.js'
import { Link, type Document } from '../infra/representation.js'
import type { Namespace } from '../../services/catalog/workspaces.js'
import type { RootFields } from '../../schemas/common.js'

type NamespaceFields = RootFields<typeof NamespaceBody>

export default async function namespaces (app: TypedApp) {
  const { workspaces, urls } = app
  const service = workspaces.namespaces

  const one = (ns: Namespace): Document => ({ namespace: { prefix: ns.prefix, uri: ns.uri, isolated: ns.isolated } })

  for (const url of suffixed('/namespaces')) {
    app.get(url, { schema: { summary: 'List namespaces', response: responses.namespaces } }, async (req: FastifyRequest, reply) => {
      const list = await service.list()
      return reply.resource({
        namespaces: {
          namespace: list.map((ns) => ({ name: ns.prefix, href: new Link(urls.rest(req, 'namespaces', ns.prefix), 'application/atom+xml') }))
        }
      })
    })
    app.post(url, { schema: { summary: 'Create a namespace and its workspace (201, body = its prefix)', body: NamespaceBody, response: responses.created } }, async (req, reply) => {
      const ns = await service.create(bodyRoot<NamespaceFields>(req.body, 'namespace'))
      return reply.code(201).header('Location', urls.rest(req, 'namespaces', ns.prefix)).type('text/plain').send(ns.prefix)
    })
  }

  refuseMethods(app, suffixed('/namespaces'), ['PUT', 'DELETE'])
  refuseMethods(app, ['/namespaces/:prefix'], ['POST'])

  app.get('/namespaces/:prefix', { schema: { summary: 'A namespace (default: the default namespace)', params: NamespaceParams, response: responses.namespace } }, async (req, reply) =>
    reply.resource(one(await service.get(req.params.prefix))))

  app.put('/namespaces/:prefix', { schema: { summary: 'Change a namespace\'s URI or isolated flag (default: choose the default namespace)', params: NamespaceParams, body: NamespaceBody, response: responses.done } }, async (req, reply) => {
    await service.update(req.params.prefix, bodyRoot<NamespaceFields>(req.body, 'namespace'))
    return reply.code(200).send()
  })

  app.delete('/namespaces/:prefix', { schema: { summary: 'Delete a namespace and its workspace (refused while not empty)', params: NamespaceParams, response: responses.done } }, async (req, reply) => {
    await service.remove(req.params.prefix)
    return reply.code(200).send()
  })
}
