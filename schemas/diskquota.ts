// GeoWebCache's disk quota under {base}/tilecache/rest and {base}/gwc/rest: documented answers.
import { Type } from '@fastify/type-provider-typebox'
import { BooleanText, field, fields, OneOf, representation, rootBody } from './common.js'
import { POLICIES, STORAGE_UNITS, TIME_UNITS } from '../services/diskquota/quota-config.js'

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

// Values as the service reads them: numbers and booleans also as text (XML), blanks around text trimmed.
const positiveInt = (maximum = 2 ** 31 - 1) => Type.Union([Type.Integer({ minimum: 1, maximum }), Type.String({ pattern: '^\\s*[+]?[0-9]+\\s*$' })])
const Policy = OneOf(POLICIES)
const QuotaInput = Type.Union([
  Type.Object({ value: Type.Union([Type.Number({ minimum: 0 }), Type.String()]), units: OneOf([...STORAGE_UNITS]), id: Type.Optional(Type.Unknown({ description: 'GWC\'s id, ignored' })) }),
  Type.Object({ bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.String()]), id: Type.Optional(Type.Unknown({ description: 'GWC\'s id, ignored' })) })
])
const LayerQuota = Type.Object({ layer: Type.String({ minLength: 1 }), expirationPolicyName: Type.Optional(Policy), quota: QuotaInput })
const Unsupported = (name: string) => field(`GWC's ${name}: refused (only the embedded quota store is supported)`)

/** PUT: a partial configuration under any of GWC's three root names; what is absent stays. */
export const QuotaConfigBody = rootBody(['tilecacheQuotaConfiguration', 'gwcQuotaConfiguration', 'org.geowebcache.diskquota.DiskQuotaConfig'], fields({
  enabled: field('Whether quotas are enforced', BooleanText),
  diskBlockSize: field('Bytes of one disk block', positiveInt(2 ** 30)),
  cacheCleanUpFrequency: field('How often the cleaner runs, in cacheCleanUpUnits', positiveInt()),
  cacheCleanUpUnits: field('The unit of cacheCleanUpFrequency', OneOf([...TIME_UNITS])),
  maxConcurrentCleanUps: field('Cleanups run at once', positiveInt()),
  globalExpirationPolicyName: field('Which tiles go first when over quota', Policy),
  globalQuota: field('A quota: { value, units } or { bytes }', QuotaInput),
  quotaStore: field('Where usage is kept: only the embedded store', Type.String({ pattern: '^\\s*([sS][qQ][lL][iI][tT][eE]|[eE][mM][bB][eE][dD][dD][eE][dD])\\s*$' })),
  layerQuotas: field('Per-layer quotas: { LayerQuota: [{ layer, expirationPolicyName, quota }] } ("" for none)',
    Type.Union([Type.Literal(''), Type.Array(LayerQuota), Type.Object({ LayerQuota: Type.Union([LayerQuota, Type.Array(LayerQuota)]) })])),
  jdbcConfiguration: Unsupported('JDBC quota store settings'),
  JDBCConfiguration: Unsupported('JDBC quota store settings'),
  dialect: Unsupported('JDBC dialect'),
  jndiSource: Unsupported('JNDI source'),
  connectionPool: Unsupported('connection pool settings')
}))
