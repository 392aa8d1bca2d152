// GeoServer's disableOnConnFailure for cascaded stores: a store that sets it and whose remote cannot
// be reached (the connection refused or broken off, no answer in time, its name not resolving) is
// marked down; its layers then read as disabled wherever layers are read (the layer catalog's rows
// go through `layers`): out of the capabilities, answered as not defined, not drawn nor seeded. The
// first request that meets a down store after `retrySeconds` asks the remote's capabilities again
// (one probe at a time per store) and the layers come back when it answers. A store change clears
// the mark. The state is this process's: each node of a cluster finds a dead remote on its own.
import { isCascaded, type LayerInfo } from '../catalog/layers.js'
import type { LayerStore } from '../catalog/store.js'

/** True when the remote answered (or the store no longer asks to be disabled), false when it still fails. */
export type StoreProbe = (workspace: string, store: string) => Promise<boolean>

export function createStoreHealth (opts: { retrySeconds: number, now?: () => number }) {
  const now = opts.now ?? Date.now
  const down = new Map<string, { probedAt: number, probing?: Promise<void> }>()
  let probe: StoreProbe | undefined

  async function isDown (workspace: string, store: string): Promise<boolean> {
    const key = `${workspace}:${store}`
    const d = down.get(key)
    if (!d) return false
    if (probe && now() - d.probedAt >= opts.retrySeconds * 1000) {
      const ask = probe
      d.probing ??= (async () => {
        try { if (await ask(workspace, store)) down.delete(key) } catch { /* still down */ } finally { d.probedAt = now(); d.probing = undefined }
      })()
      await d.probing
    }
    return down.has(key)
  }

  const checked = async (l: LayerInfo): Promise<LayerInfo> => l.enabled && isCascaded(l) && await isDown(l.workspace, l.store) ? { ...l, enabled: false } : l

  return {
    /** The cascade service's probe (set once it exists). */
    setProbe (fn: StoreProbe) { probe = fn },
    markDown (workspace: string, store: string) { if (!down.has(`${workspace}:${store}`)) down.set(`${workspace}:${store}`, { probedAt: now() }) },
    markUp (workspace: string, store: string) { down.delete(`${workspace}:${store}`) },
    isDown,
    /** The layer rows with a down store's layers disabled. */
    layers (store: LayerStore): LayerStore {
      return {
        ...store,
        list: async (workspace?: string) => await Promise.all((await store.list(workspace)).map(checked)),
        get: async (workspace: string, name: string) => { const l = await store.get(workspace, name); return l ? await checked(l) : undefined }
      }
    }
  }
}
export type StoreHealth = ReturnType<typeof createStoreHealth>
