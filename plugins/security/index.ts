// The security area under {base}/rest/security: master password, catalog mode, layer access
// rules, users and roles. Every route needs ADMIN (the auth
// default) except PUT masterpw, which answers a non-admin 405 as GeoServer does.
import type { FastifyInstance } from 'fastify'
import masterpw from './masterpw.js'
import acl from './acl.js'
import accounts from './accounts.js'

export default async function security (app: FastifyInstance) {
  await app.register(masterpw)
  await app.register(acl)
  await app.register(accounts)
}
