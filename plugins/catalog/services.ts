// {base}/rest/services/{wms,wmts,wfs}/settings and .../services/<svc>/workspaces/<ws>/settings:
// GeoServer's ServiceSettingsController and its workspace-local form (roots `wms`, `wmts`, `wfs`, as
// XStream writes WMSInfo, WMTSInfo and WFSInfo). PUTs are partial and persisted before 200; a
// workspace's first PUT creates its own settings, DELETE drops them (its service follows the global ones).
// Workspace-local settings exist for WMS ({base}/<ws>/wms) and WFS, not WMTS (no per-workspace WMTS).
import type { TypedApp } from '../infra/routes.js'
import { bodyRoot, refuseMethods, suffixed } from '../infra/routes.js'
import type { Document } from '../infra/representation.js'
import { ServiceBodies, responses, serviceResponses } from '../../schemas/settings.js'
import { SERVICE_NAMES, SERVICE_VERSIONS, type ServiceName, type ServiceSettings } from '../../services/settings/service-settings.js'
import { ServiceSettingsNotFound, WorkspaceNotFound } from '../../services/errors.js'

type WsParams = { ws: string }

export function serviceDoc (service: ServiceName, s: ServiceSettings, workspace?: string): Document {
  return {
    [service]: {
      workspace: workspace !== undefined ? { name: workspace } : undefined,
      enabled: s.enabled,
      name: s.name,
      title: s.title,
      maintainer: s.maintainer,
      abstrct: s.abstrct,
      accessConstraints: s.accessConstraints,
      fees: s.fees,
      versions: { 'org.geotools.util.Version': SERVICE_VERSIONS[service].map((version) => ({ version })) },
      keywords: { string: s.keywords },
      citeCompliant: s.citeCompliant,
      onlineResource: s.onlineResource,
      schemaBaseURL: s.schemaBaseURL,
      verbose: s.verbose,
      ...(service === 'wms'
        ? {
            srs: { string: s.srs ?? [] },
            bboxForEachCRS: s.bboxForEachCRS ?? false,
            watermark: { ...s.watermark! },
            interpolation: s.interpolation,
            maxBuffer: s.maxBuffer,
            maxRequestMemory: s.maxRequestMemory,
            maxRenderingTime: s.maxRenderingTime,
            maxRenderingErrors: s.maxRenderingErrors
          }
        : {}),
      ...(service === 'wfs'
        ? {
            serviceLevel: s.serviceLevel,
            maxFeatures: s.maxFeatures,
            featureBounding: s.featureBounding,
            canonicalSchemaLocation: s.canonicalSchemaLocation,
            encodeFeatureMember: s.encodeFeatureMember,
            hitsIgnoreMaxFeatures: s.hitsIgnoreMaxFeatures
          }
        : {})
    }
  }
}

export default async function services (app: TypedApp) {
  const settings = app.serviceSettings
  const workspace = async (ws: string) => { if (!(await app.workspaces.exists(ws))) throw WorkspaceNotFound(ws) }

  for (const service of SERVICE_NAMES) {
    const NAME = service.toUpperCase()
    const global = suffixed(`/services/${service}/settings`)
    for (const url of global) {
      app.get(url, { schema: { summary: `The ${NAME} settings`, response: serviceResponses[service] } }, async (_req, reply) => reply.resource(serviceDoc(service, settings.get(service))))
      app.put(url, { schema: { summary: `Change the ${NAME} settings (partial)`, body: ServiceBodies[service], response: responses.done } }, async (req, reply) => {
        await settings.update(service, bodyRoot(req.body, service))
        return reply.code(200).send()
      })
    }
    refuseMethods(app, global, ['POST', 'DELETE'])

    // mapwarden's WMTS has no per-workspace endpoint, so a workspace's own WMTS settings would
    // change nothing: those routes are not offered (404).
    if (service === 'wmts') continue
    const local = suffixed(`/services/${service}/workspaces/:ws/settings`)
    for (const url of local) {
      app.get<{ Params: WsParams }>(url, { schema: { summary: `A workspace's own ${NAME} settings`, response: serviceResponses[service] } }, async (req, reply) => {
        await workspace(req.params.ws)
        const own = settings.local(service, req.params.ws)
        if (!own) throw ServiceSettingsNotFound(NAME, req.params.ws)
        return reply.resource(serviceDoc(service, own, req.params.ws))
      })
      app.put<{ Params: WsParams }>(url, { schema: { summary: `Create or change a workspace's own ${NAME} settings (partial; the first PUT starts from the global ones)`, body: ServiceBodies[service], response: responses.done } }, async (req, reply) => {
        await workspace(req.params.ws)
        await settings.update(service, bodyRoot(req.body, service), req.params.ws)
        return reply.code(200).send()
      })
      app.delete<{ Params: WsParams }>(url, { schema: { summary: `Remove a workspace's own ${NAME} settings (its service follows the global ones)`, response: responses.done } }, async (req, reply) => {
        await workspace(req.params.ws)
        await settings.remove(service, req.params.ws)
        return reply.code(200).send()
      })
    }
    refuseMethods(app, local, ['POST'])
  }
}
