// GET/PUT {base}/rest/security/masterpw(.xml|.json): MasterPasswordController.
import type { FastifyInstance } from 'fastify'
import { suffixed } from '../infra/routes.js'
import { responses } from '../../schemas/security.js'
import { isAdmin } from '../infra/auth.js'
import { MasterPasswordAdminOnly } from '../../services/errors.js'
import { mapBody, mapFormat, mapXml } from './maps.js'
import { checkFields } from '../../services/body-fields.js'

export default async function masterpw (app: FastifyInstance) {
  const master = app.masterPassword

  for (const url of suffixed('/masterpw')) {
    app.get(url, { schema: { summary: 'The master password (administrators only)' }, config: { responses: responses.masterpw } }, async (req, reply) => {
      const format = mapFormat(req)
      const pw = await master.get()
      reply.header('Cache-Control', 'no-store')
      return format === 'json'
        ? reply.type('application/json').send(JSON.stringify({ oldMasterPassword: pw }))
        : reply.type('application/xml').send(mapXml('masterPassword', [['oldMasterPassword', pw]]))
    })
    // 'authenticated' so a non-admin reaches the check below: GeoServer answers 405 there
    // ("for backwards compatibility, it's really METHOD_NOT_ALLOWED").
    app.put(url, { schema: { summary: 'Change the master password (needs the old one)' }, config: { access: 'authenticated' } }, async (req, reply) => {
      if (!isAdmin(req.principal)) throw MasterPasswordAdminOnly()
      const body = mapBody(req, 'masterPassword')
      checkFields(body, 'masterPassword', ['oldMasterPassword', 'newMasterPassword'])
      await master.change(body.oldMasterPassword, body.newMasterPassword)
      req.log.info({ user: req.principal.name }, 'master password changed')
      return reply.code(200).send()
    })
  }
}
