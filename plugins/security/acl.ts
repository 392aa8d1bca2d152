// {base}/rest/security/acl/catalog and acl/layers: CatalogModeController and DataAccessController.
// Statuses: GeoServer's, except POST rules answers 201 (a rule was created).
import { suffixed, type TypedApp } from '../infra/routes.js'
import { CatalogModeBody, RuleParams, RulesBody, responses } from '../../schemas/security.js'
import { CATALOG_MODES, parseRuleEntries, ruleKey, type CatalogMode } from '../../services/security/rules.js'
import { CatalogModeMissing, InvalidCatalogMode, MethodNotAllowed } from '../../services/errors.js'
import { asMap, mapFormat, mapXml, ruleEntries, rulesXml } from './maps.js'
import { checkFields } from '../../services/body-fields.js'

export default async function acl (app: TypedApp) {
  const access = app.layerAccess

  for (const url of suffixed('/acl/catalog')) {
    app.get(url, { schema: { summary: 'Catalog mode (HIDE, MIXED, CHALLENGE)', response: responses.catalog } }, async (req, reply) => {
      const mode = access.catalogMode()
      return mapFormat(req) === 'json'
        ? reply.type('application/json').send(JSON.stringify({ mode }))
        : reply.type('application/xml').send(mapXml('catalog', [['mode', mode]]))
    })
    app.put(url, { schema: { summary: 'Change the catalog mode', body: CatalogModeBody }, preValidation: asMap('catalog') }, async (req, reply) => {
      const body = req.body
      if (!('mode' in body)) throw CatalogModeMissing()
      checkFields(body, 'catalog', ['mode'])
      const mode = typeof body.mode === 'string' ? body.mode.trim() : body.mode
      if (!CATALOG_MODES.includes(mode as CatalogMode)) throw InvalidCatalogMode(typeof mode === 'string' ? mode : JSON.stringify(mode))
      await access.setCatalogMode(mode as CatalogMode)
      req.log.info({ user: req.principal.name, mode }, 'catalog mode changed')
      return reply.code(200).send()
    })
  }
  for (const method of ['PUT', 'POST'] as const) {
    app.route({ schema: { summary: 'Reload the security rules' }, method, url: '/acl/catalog/reload', handler: async (_req, reply) => { await access.reload(); return reply.code(200).send() } })
  }

  for (const url of suffixed('/acl/layers')) {
    app.get(url, { schema: { summary: 'Layer access rules', response: responses.rules } }, async (req, reply) => {
      const entries = (await access.rules()).map((r): [string, string] => [ruleKey(r), r.roles.join(',')])
      return mapFormat(req) === 'json'
        ? reply.type('application/json').send(JSON.stringify(Object.fromEntries(entries)))
        : reply.type('application/xml').send(rulesXml(entries))
    })
    app.post(url, { schema: { summary: 'Add layer access rules (201)', body: RulesBody } }, async (req, reply) => {
      const rules = parseRuleEntries(ruleEntries(req))
      await access.addRules(rules)
      req.log.info({ user: req.principal.name, rules: rules.map(ruleKey) }, 'layer rules added')
      return reply.code(201).send()
    })
    app.put(url, { schema: { summary: 'Change existing layer access rules', body: RulesBody } }, async (req, reply) => {
      const rules = parseRuleEntries(ruleEntries(req))
      await access.updateRules(rules)
      req.log.info({ user: req.principal.name, rules: rules.map(ruleKey) }, 'layer rules changed')
      return reply.code(200).send()
    })
    app.route({ schema: { summary: 'Not allowed: answers 405 (as GeoServer)' },
      method: ['DELETE', 'PATCH'],
      url,
      handler: async (req, reply) => { reply.header('Allow', 'GET, POST, PUT'); throw MethodNotAllowed(req.method) }
    })
  }
  app.delete('/acl/layers/:rule', { schema: { summary: 'Delete a layer access rule', params: RuleParams } }, async (req, reply) => {
    const { rule } = req.params
    await access.removeRule(rule)
    req.log.info({ user: req.principal.name, rule }, 'layer rule deleted')
    return reply.code(200).send()
  })
}
