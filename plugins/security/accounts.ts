// Users and roles: GeoServer's UsersRestController (usergroup/...) and RolesRestController
// (roles/...) for the default services. Passwords are write-only. A changed password, enabled
// flag or role set takes effect at once: the verified-credentials cache forgets the user.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { suffixed } from '../infra/routes.js'
import { escapeXml } from '../infra/representation.js'
import { createAccounts } from '../../services/security/accounts.js'
import { ADMIN_ROLES } from '../infra/auth.js'
import { mapBody, mapFormat } from './maps.js'
import { checkFields } from '../../services/body-fields.js'

const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'

function sendRoles (req: FastifyRequest, reply: FastifyReply, roles: string[]) {
  if (mapFormat(req) === 'json') return reply.type('application/json').send(JSON.stringify({ roles }))
  const body = roles.length === 0 ? '<roles/>' : `<roles>${roles.map((r) => `<role>${escapeXml(r)}</role>`).join('')}</roles>`
  return reply.type('application/xml').send(`${DECLARATION}${body}`)
}

export default async function accounts (app: FastifyInstance) {
  const service = createAccounts(app.db, { adminRoles: ADMIN_ROLES })
  const forget = (user?: string) => app.authenticator.invalidate(user)

  for (const url of suffixed('/usergroup/users')) {
    app.get(url, { schema: { summary: 'List users' } }, async (req, reply) => {
      const users = service.listUsers()
      if (mapFormat(req) === 'json') {
        return reply.type('application/json').send(JSON.stringify({ users: users.map((u) => ({ userName: u.name, enabled: u.enabled })) }))
      }
      const items = users.map((u) => `<user><userName>${escapeXml(u.name)}</userName><enabled>${u.enabled}</enabled></user>`)
      return reply.type('application/xml').send(`${DECLARATION}${items.length ? `<users>${items.join('')}</users>` : '<users/>'}`)
    })
    app.post(url, { schema: { summary: 'Create a user' } }, async (req, reply) => {
      const u = mapBody(req, 'user')
      checkFields(u, 'user', ['userName', 'password', 'enabled'])
      const name = await service.addUser({ name: u.userName, password: u.password, enabled: u.enabled })
      req.log.info({ user: req.principal.name, created: name }, 'user created')
      return reply.code(201).send()
    })
  }
  app.post('/usergroup/user/:user', { schema: { summary: 'Change a user (password, enabled)' } }, async (req, reply) => {
    const { user } = req.params as { user: string }
    const u = mapBody(req, 'user')
    // The name is the path's: sent back unchanged it passes, a rename is refused by name.
    checkFields(u, 'user', ['password', 'enabled'], { userName: user })
    await service.updateUser(user, { password: u.password, enabled: u.enabled })
    forget(user)
    req.log.info({ user: req.principal.name, updated: user }, 'user updated')
    return reply.code(200).send()
  })
  app.delete('/usergroup/user/:user', { schema: { summary: 'Delete a user' } }, async (req, reply) => {
    const { user } = req.params as { user: string }
    service.removeUser(user)
    forget(user)
    req.log.info({ user: req.principal.name, removed: user }, 'user removed')
    return reply.code(200).send()
  })

  for (const url of suffixed('/roles')) {
    app.get(url, { schema: { summary: 'List roles' } }, async (req, reply) => sendRoles(req, reply, service.listRoles()))
  }
  app.get('/roles/user/:user', { schema: { summary: 'Roles of a user' } }, async (req, reply) => {
    const { user } = req.params as { user: string }
    return sendRoles(req, reply, service.rolesOf(user))
  })
  app.post('/roles/role/:role', { schema: { summary: 'Create a role' } }, async (req, reply) => {
    const { role } = req.params as { role: string }
    service.addRole(role)
    return reply.code(201).send()
  })
  app.delete('/roles/role/:role', { schema: { summary: 'Delete a role' } }, async (req, reply) => {
    const { role } = req.params as { role: string }
    service.removeRole(role)
    forget()
    return reply.code(200).send()
  })
  app.post('/roles/role/:role/user/:user', { schema: { summary: 'Give a user a role' } }, async (req, reply) => {
    const { role, user } = req.params as { role: string, user: string }
    service.associate(role, user)
    forget(user)
    return reply.code(200).send()
  })
  app.delete('/roles/role/:role/user/:user', { schema: { summary: 'Take a role from a user' } }, async (req, reply) => {
    const { role, user } = req.params as { role: string, user: string }
    service.disassociate(role, user)
    forget(user)
    return reply.code(200).send()
  })
}
