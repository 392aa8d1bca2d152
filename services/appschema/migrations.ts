import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'appschema/<nnn>-<what>', append only.
export const appschemaMigrations: Migration[] = []
