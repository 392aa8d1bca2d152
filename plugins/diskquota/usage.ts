// The usage resource (beyond GWC; its users ask for it): bytes used against each quota, per
// layer and tile set, the last clean-up and the progress of a rebuild from disk.
import type { Document } from '../infra/representation.js'
import type { DiskQuota } from '../../services/diskquota/disk-quota.js'

type Usage = Awaited<ReturnType<DiskQuota['usage']>>

export function usageDocument (u: Usage): Document {
  const c = u.config
  const byLayer = new Map<string, Usage['tileSets']>()
  for (const s of u.tileSets) {
    if (s.bytes === 0 && s.tiles === 0) continue
    byLayer.set(s.layer, [...(byLayer.get(s.layer) ?? []), s])
  }
  for (const q of c.layerQuotas) if (!byLayer.has(q.layer)) byLayer.set(q.layer, [])
  const layers = [...byLayer.keys()].sort().map((name) => {
    const sets = byLayer.get(name)!
    const own = c.layerQuotas.find((q) => q.layer === name)
    return {
      name,
      quota: own ? 'layer' : 'global',
      quotaBytes: own?.quotaBytes,
      expirationPolicyName: own?.expirationPolicyName ?? c.globalExpirationPolicyName,
      usedBytes: sets.reduce((n, s) => n + s.bytes, 0),
      tiles: sets.reduce((n, s) => n + s.tiles, 0),
      tileSets: {
        tileSet: sets.map((s) => ({ gridSetId: s.gridSet, format: s.format, parameterId: s.parameterId, tiles: s.tiles, usedBytes: s.bytes }))
      }
    }
  })
  return {
    diskQuotaUsage: {
      enabled: c.enabled,
      diskBlockSize: c.diskBlockSize,
      usedBytes: u.usedBytes,
      globalQuota: { quotaBytes: c.globalQuotaBytes, usedBytes: u.globalUsedBytes, expirationPolicyName: c.globalExpirationPolicyName },
      lastCleanUp: u.lastCleanUp,
      rebuild: {
        state: u.rebuild.state,
        filesScanned: u.rebuild.filesScanned,
        bytesScanned: u.rebuild.bytesScanned,
        startedAt: u.rebuild.startedAt,
        finishedAt: u.rebuild.finishedAt
      },
      layers: { layer: layers }
    }
  }
}
