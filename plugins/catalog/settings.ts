// {base}/rest/settings and settings/contact: GeoServer's SettingsController for the global settings
// (root `global`, with `settings` inside; `contact` alone). PUTs are partial and persisted before 200.
import type { TypedApp } from '../infra/routes.js'
import { bodyRoot, refuseMethods, suffixed } from '../infra/routes.js'
import type { Document } from '../infra/representation.js'
import { ContactBody, GlobalBody, responses } from '../../schemas/settings.js'
import type { GlobalSettings } from '../../services/settings/settings.js'

export default async function settings (app: TypedApp) {
  const service = app.globalSettings

  const contactDoc = (g: GlobalSettings) => ({ ...g.settings.contact })
  const globalDoc = (g: GlobalSettings): Document => {
    const s = g.settings
    return {
      global: {
        settings: {
          contact: contactDoc(g),
          charset: s.charset,
          numDecimals: s.numDecimals,
          onlineResource: s.onlineResource,
          proxyBaseUrl: s.proxyBaseUrl,
          verbose: s.verbose,
          verboseExceptions: s.verboseExceptions
        },
        updateSequence: g.updateSequence
      }
    }
  }

  for (const url of suffixed('/settings')) {
    app.get(url, { schema: { summary: 'The global settings', response: responses.global } }, async (_req, reply) => reply.resource(globalDoc(service.get())))
    app.put(url, { schema: { summary: 'Change the global settings (partial)', body: GlobalBody, response: responses.done } }, async (req, reply) => {
      await service.update(bodyRoot(req.body, 'global'))
      return reply.code(200).send()
    })
  }
  refuseMethods(app, [...suffixed('/settings'), ...suffixed('/settings/contact')], ['POST', 'DELETE'])
  for (const url of suffixed('/settings/contact')) {
    app.get(url, { schema: { summary: 'The global contact information', response: responses.contact } }, async (_req, reply) => reply.resource({ contact: contactDoc(service.get()) }))
    app.put(url, { schema: { summary: 'Change the global contact information (partial)', body: ContactBody, response: responses.done } }, async (req, reply) => {
      await service.updateContact(bodyRoot(req.body, 'contact'))
      return reply.code(200).send()
    })
  }
}
