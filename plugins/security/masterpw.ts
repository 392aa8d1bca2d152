// GET/PUT {base}/rest/security/masterpw(.xml|.json): MasterPasswordController.
import type { FastifyRequest } from 'fastify'
import { suffixed, type TypedApp } from '../infra/routes.js'
import { MasterPasswordBody, responses } from '../../schemas/security.js'
import { isAdmin } from '../infra/auth.js'
import { MasterPasswordAdminOnly } from '../../services/errors.js'
import { asMap, mapFormat, mapXml } from './maps.js'
import { checkFields } from '../../services/body-fields.js'

// The administrator check comes before the body is read (preValidation), as in GeoServer.
const adminOnly = async (req: FastifyRequest) => { if (!isAdmin(req.principal)) throw MasterPasswordAdminOnly() }

export default async function masterpw (app: TypedApp) {
  const master = app.masterPassword

  for (const url of suffixed('/masterpw')) {
    app.get(url, { schema: { summary: 'The master password (administrators only)', response: responses.masterpw } }, async (req, reply) => {
      const format = mapFormat(req)
      const pw = await master.get()
      reply.header('Cache-Control', 'no-store')
      return format === 'json'
        ? reply.type('application/json').send(JSON.stringify({ oldMasterPassword: pw }))
        : reply.type('application/xml').send(mapXml('masterPassword', [['oldMasterPassword', pw]]))
    })
    // 'authenticated' so a non-admin reaches adminOnly: GeoServer answers 405 there
    // ("for backwards compatibility, it's really METHOD_NOT_ALLOWED").
    app.put(url, { schema: { summary: 'Change the master password (needs the old one)', body: MasterPasswordBody }, config: { access: 'authenticated' }, preValidation: [adminOnly, asMap('masterPassword')] }, async (req, reply) => {
      const body = req.body
      checkFields(body, 'masterPassword', ['oldMasterPassword', 'newMasterPassword'])
      await master.change(body.oldMasterPassword, body.newMasterPassword)
      req.log.info({ user: req.principal.name }, 'master password changed')
      return reply.code(200).send()
    })
  }
}
