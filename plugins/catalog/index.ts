// The catalog core under {base}/rest: workspaces, namespaces, global and service settings, reload/reset, about and fonts.
import type { FastifyInstance } from 'fastify'
import workspaces from './workspaces.js'
import namespaces from './namespaces.js'
import settings from './settings.js'
import services from './services.js'
import reload from './reload.js'
import about from './about.js'
import fonts from './fonts.js'

export default async function catalog (app: FastifyInstance) {
  await app.register(workspaces)
  await app.register(namespaces)
  await app.register(settings)
  await app.register(services)
  await app.register(reload)
  await app.register(about)
  await app.register(fonts)
}
