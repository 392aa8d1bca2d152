// The security area under {base}/rest/security: master password, catalog mode, layer access
// rules, users and roles (geoserver-wire-formats.md section 7). Every route needs ADMIN (the auth
// default) except PUT masterpw, which answers a non-admin 405 as GeoServer does.
import type { FastifyInstance } from 'fastify'
import masterpw from './masterpw.js'
import acl from './acl.js'
import accounts from './accounts.js'
import { tileAuthorizer } from '../../services/security/tile-authorizer.js'

export default async function security (app: FastifyInstance) {
  // The tile cache's single check for tile reads, capabilities and seed requests.
  if (app.hasDecorator('tileCache')) app.tileCache.setAuthorizer(tileAuthorizer(app.layerAccess))
  // Rules of a deleted workspace go with it, so a new workspace of that name starts from the defaults.
  app.workspaces.onRemoved(async (ws) => {
    const n = app.layerAccess.removeWorkspaceRules(ws)
    if (n > 0) app.log.info({ workspace: ws, rules: n }, 'layer rules of a deleted workspace removed')
  })
  await app.register(masterpw)
  await app.register(acl)
  await app.register(accounts)
}
