// Which layers use a style: GeoServer resolves a layer's style reference ('ws:name', or a bare
// name in the layer's workspace, then among the global styles), so a style's users are the layers
// whose references resolve to it, and a rename, move or detach rewrites exactly those references.
import type { StyleUse } from '../tilecache/tile-invalidation.js'
import { styleRef, type LayerRef, type StyleRow, type StyleStore } from './store.js'

export function styleReferences (store: StyleStore) {
  /** GeoServer's resolution of a layer's style reference: 'ws:name', or a bare name in the layer's workspace, then global. */
  const resolve = async (workspace: string | undefined, ref: string): Promise<StyleRow | undefined> => {
    const i = ref.indexOf(':')
    if (i > 0) return await store.get(ref.slice(0, i), ref.slice(i + 1))
    return (workspace !== undefined ? await store.get(workspace, ref) : undefined) ?? await store.get(undefined, ref)
  }
  /** The references among `refs` that resolve to style `s` in the layer's workspace. */
  const refsTo = async (s: StyleRow, workspace: string, refs: Array<string | undefined>): Promise<Set<string>> => {
    const out = new Set<string>()
    for (const ref of refs) if (ref !== undefined && (await resolve(workspace, ref))?.id === s.id) out.add(ref)
    return out
  }

  return {
    resolve,

    /** Layers that use a style (their references resolve to it). */
    async usersOf (s: StyleRow): Promise<LayerRef[]> {
      const users: LayerRef[] = []
      for (const l of await store.layersNaming(styleRef(s), s.name)) {
        if ((await refsTo(s, l.workspace, [l.defaultStyle, ...l.styles])).size > 0) users.push(l)
      }
      return users
    },

    /** How each user layer named the style before a change (computed while the references still resolve). */
    async usesOf (s: StyleRow, users: LayerRef[]): Promise<StyleUse[]> {
      const uses: StyleUse[] = []
      for (const l of users) uses.push({ layer: `${l.workspace}:${l.name}`, defaultStyle: l.defaultStyle, refs: [...await refsTo(s, l.workspace, [l.defaultStyle, ...l.styles])] })
      return uses
    },

    /** The layers with their references to a style rewritten (rename, move, detach), matched while
     *  they still resolve to the old name and place. */
    async rewriteRefs (users: LayerRef[], s: StyleRow, to: string | undefined): Promise<LayerRef[]> {
      const out: LayerRef[] = []
      for (const l of users) {
        const hits = await refsTo(s, l.workspace, [l.defaultStyle, ...l.styles])
        const styles = l.styles.flatMap((ref) => hits.has(ref) ? (to === undefined ? [] : [to]) : [ref])
        out.push({ ...l, defaultStyle: l.defaultStyle !== undefined && hits.has(l.defaultStyle) ? to : l.defaultStyle, styles })
      }
      return out
    }
  }
}
