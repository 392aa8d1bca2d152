import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'styles/<nnn>-<what>', append only.
export const styleMigrations: Migration[] = []
