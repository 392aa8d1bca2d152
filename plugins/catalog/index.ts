// The catalog core under {base}/rest: workspaces and about.
import type { FastifyInstance } from 'fastify'
import workspaces from './workspaces.js'
import about from './about.js'

export default async function catalog (app: FastifyInstance) {
  await app.register(workspaces)
  await app.register(about)
}
