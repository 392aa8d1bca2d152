// GeoWebCache's disk quota under {base}/tilecache/rest and {base}/gwc/rest: documented answers.
import { Type } from '@fastify/type-provider-typebox'
import { representation } from './common.js'

/** A size in its best-fitting unit, as GWC writes it. */
const Quota = Type.Unknown({ description: 'A quota: { value, units }' })

export const QuotaConfig = Type.Object({
  tilecacheQuotaConfiguration: Type.Object({
    enabled: Type.Boolean(),
    cacheCleanUpFrequency: Type.Integer(),
    cacheCleanUpUnits: Type.String(),
    maxConcurrentCleanUps: Type.Integer(),
    globalExpirationPolicyName: Type.String(),
    globalQuota: Quota
  }, { additionalProperties: true })
})

export const Usage = Type.Object({
  diskQuotaUsage: Type.Object({
    globalQuota: Type.Object({ quotaBytes: Type.Optional(Type.Integer()), usedBytes: Type.Integer(), expirationPolicyName: Type.String() }, { additionalProperties: true }),
    layers: Type.Unknown()
  }, { additionalProperties: true })
})

export const responses = {
  config: { 200: representation('The disk-quota configuration (after the change, for a PUT)', QuotaConfig) },
  usage: { 200: representation('Disk usage, globally and per layer and tile set', Usage) }
}
