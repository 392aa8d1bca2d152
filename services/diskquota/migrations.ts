import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'diskquota/<nnn>-<what>', append only.
export const diskquotaMigrations: Migration[] = []
