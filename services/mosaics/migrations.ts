import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'mosaics/<nnn>-<what>', append only.
export const mosaicMigrations: Migration[] = []
