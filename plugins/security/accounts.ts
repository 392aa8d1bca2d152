// Users and roles: GeoServer's UsersRestController (usergroup/...) and RolesRestController
// (roles/...) for the default services. Passwords are write-only. A changed password, enabled
// flag or role set takes effect at once: the verified-credentials cache forgets the user.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { suffixed, type TypedApp } from '../infra/routes.js'
import { RoleParams, RoleUserParams, UserBody, UserParams, responses } from '../../schemas/security.js'
import { toXml } from '../infra/representation.js'
import { asMap, mapFormat } from './maps.js'
import { checkFields } from '../../services/body-fields.js'

/** GeoServer's JAXB layout for users and roles: a standalone declaration, then the document on one line. */
const JAXB_LAYOUT = { declaration: '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>', compact: true }

function sendRoles (req: FastifyRequest, reply: FastifyReply, roles: string[]) {
  if (mapFormat(req) === 'json') return reply.type('application/json').send(JSON.stringify({ roles }))
  return reply.type('application/xml').send(toXml({ roles: { role: roles } }, JAXB_LAYOUT))
}

export default async function accounts (app: TypedApp) {
  const service = app.accounts
  const forget = (user?: string) => app.authenticator.invalidate(user)

  for (const url of suffixed('/usergroup/users')) {
    app.get(url, { schema: { summary: 'List users', response: responses.users } }, async (req, reply) => {
      const user = (await service.listUsers()).map((u) => ({ userName: u.name, enabled: u.enabled }))
      if (mapFormat(req) === 'json') return reply.type('application/json').send(JSON.stringify({ users: user }))
      return reply.type('application/xml').send(toXml({ users: { user } }, JAXB_LAYOUT))
    })
    app.post(url, { schema: { summary: 'Create a user', body: UserBody }, preValidation: asMap('user') }, async (req, reply) => {
      const u = req.body
      checkFields(u, 'user', ['userName', 'password', 'enabled'])
      const name = await service.addUser({ name: u.userName, password: u.password, enabled: u.enabled })
      req.log.info({ user: req.principal.name, created: name }, 'user created')
      return reply.code(201).send()
    })
  }
  app.post('/usergroup/user/:user', { schema: { summary: 'Change a user (password, enabled)', params: UserParams, body: UserBody }, preValidation: asMap('user') }, async (req, reply) => {
    const { user } = req.params
    const u = req.body
    // The name is the path's: sent back unchanged it passes, a rename is refused by name.
    checkFields(u, 'user', ['password', 'enabled'], { userName: user })
    await service.updateUser(user, { password: u.password, enabled: u.enabled })
    forget(user)
    req.log.info({ user: req.principal.name, updated: user }, 'user updated')
    return reply.code(200).send()
  })
  app.delete('/usergroup/user/:user', { schema: { summary: 'Delete a user', params: UserParams } }, async (req, reply) => {
    const { user } = req.params
    await service.removeUser(user)
    forget(user)
    req.log.info({ user: req.principal.name, removed: user }, 'user removed')
    return reply.code(200).send()
  })

  for (const url of suffixed('/roles')) {
    app.get(url, { schema: { summary: 'List roles', response: responses.roles } }, async (req, reply) => sendRoles(req, reply, await service.listRoles()))
  }
  app.get('/roles/user/:user', { schema: { summary: 'Roles of a user', params: UserParams, response: responses.roles } }, async (req, reply) => {
    const { user } = req.params
    return sendRoles(req, reply, await service.rolesOf(user))
  })
  app.post('/roles/role/:role', { schema: { summary: 'Create a role', params: RoleParams } }, async (req, reply) => {
    const { role } = req.params
    await service.addRole(role)
    return reply.code(201).send()
  })
  app.delete('/roles/role/:role', { schema: { summary: 'Delete a role', params: RoleParams } }, async (req, reply) => {
    const { role } = req.params
    await service.removeRole(role)
    forget()
    return reply.code(200).send()
  })
  app.post('/roles/role/:role/user/:user', { schema: { summary: 'Give a user a role', params: RoleUserParams } }, async (req, reply) => {
    const { role, user } = req.params
    await service.associate(role, user)
    forget(user)
    return reply.code(200).send()
  })
  app.delete('/roles/role/:role/user/:user', { schema: { summary: 'Take a role from a user', params: RoleUserParams } }, async (req, reply) => {
    const { role, user } = req.params
    await service.disassociate(role, user)
    forget(user)
    return reply.code(200).send()
  })
}
