import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'security/<nnn>-<what>', append only.
export const securityMigrations: Migration[] = []
