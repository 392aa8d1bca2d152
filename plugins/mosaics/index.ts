// The mosaics area. Routes are added by its issue; see plugins/app.ts for where it is mounted.
import type { FastifyInstance } from 'fastify'

export default async function mosaics (_app: FastifyInstance) {}
