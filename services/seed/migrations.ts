import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'seed/<nnn>-<what>', append only.
export const seedMigrations: Migration[] = []
