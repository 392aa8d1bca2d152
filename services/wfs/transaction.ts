// Transaction (WFS 2.0.0, 1.1.0, 1.0.0; POSTed XML): Insert, Update (Property with Name or
// ValueReference and Value) and Delete (with a filter), read whole and checked before anything is
// written: every type readable and writable by the caller (the layer rules' `w`), every property
// published, every value of its attribute's binding, every geometry GML of the column's type, taken to
// the data's CRS from its srsName. The edits then go to the store's source in one database
// transaction (all or nothing); a Transaction touches the types of one data store. After the commit
// the tiles over the touched area of each layer are dropped (and the groups drawing it), and the answer
// is the version's response as GeoServer writes it, with the inserted ids (`type.fid`).
// Locks (locks.ts): the features an Update or Delete changes must not be held by a live lock other
// than the one the Transaction names (2.0.0: its lockId attribute, 1.x: its wfs:LockId); once
// committed, releaseAction ALL (the default) releases that lock, SOME the features changed.
import type { Principal } from '../auth/authenticator.js'
import { ANONYMOUS } from '../auth/authenticator.js'
import type { XmlElement } from '../files/xml.js'
import { parseOgcFilter } from '../filters/ogc-xml.js'
import { filterType, isGeometryBinding } from '../filters/bindings.js'
import type { Envelope, Filter } from '../filters/tree.js'
import { WfsInvalidParameter, WfsMissingParameter, WfsOperationNotSupported } from '../errors.js'
import { normalizeCrs } from '../render/crs.js'
import { geojsonToWkb } from '../vector/geometry.js'
import type { Edit, EditResult, EditValue } from '../vector/source.js'
import { envelopeOf, reprojector, type Geo } from './geometry.js'
import { parseGml } from './gml-input.js'
import type { WfsVersion } from './request.js'
import type { ServedType, WfsContext, Where } from './wfs-context.js'
import type { LockedFeature } from './lock-store.js'
import type { lockOperations } from './locks.js'
import { escapeXml } from '../xml-escape.js'

/** Namespace prefixes in scope of an element: its own xmlns declarations over its ancestors'. */
type Scope = Map<string, string>
const scopeOf = (el: XmlElement, outer: Scope): Scope => {
  const own = Object.entries(el.attrs).filter(([k]) => k.startsWith('xmlns:'))
  if (own.length === 0) return outer
  const s = new Map(outer)
  for (const [k, v] of own) s.set(k.slice(6), v)
  return s
}
const kid = (el: XmlElement, ...names: string[]) => el.children.find((c) => names.includes(c.local))

export interface TransactionAnswer { contentType: string, body: string }

export function transactionOperation (ctx: WfsContext, locks: ReturnType<typeof lockOperations>) {
  /** A type named by a qualified name in scope: its prefix's namespace URI names the workspace. */
  async function typeOf (name: string, scope: Scope, principal: Principal | undefined, where: Where): Promise<ServedType> {
    const raw = name.trim()
    const i = raw.indexOf(':')
    let qualified = raw
    if (i > 0) {
      const uri = scope.get(raw.slice(0, i))
      const ns = uri ? (await ctx.deps.namespaces.list()).find((n) => n.uri === uri) : undefined
      if (ns) qualified = `${ns.prefix}:${raw.slice(i + 1)}`
    }
    const t = await ctx.readable(qualified, principal, where)
    ctx.deps.access.check(principal ?? ANONYMOUS, t.ft.workspace, t.ft.name, 'w')
    return t
  }

  /** A property of a type by its local name (case aside, as GetFeature reads them). */
  function attribute (t: ServedType, raw: string) {
    const local = raw.trim().slice(raw.trim().indexOf(':') + 1).toLowerCase()
    const a = t.attributes.find((x) => x.name.toLowerCase() === local)
    if (!a) throw WfsInvalidParameter('property', JSON.stringify(raw.slice(0, 80)), `${t.qualified} has ${t.attributes.map((x) => x.name).join(', ')}`)
    return a
  }

  const storageOf = (t: ServedType) => t.geometry && t.geometry.srid > 0 ? `EPSG:${t.geometry.srid}` : t.crs

  /** A geometry element as WKB in the data's CRS, of the column's type (a single one made multi for a multi column). */
  function geometryValue (t: ServedType, el: XmlElement | undefined, name: string, srs: string | undefined): Buffer | null {
    if (!el) return null
    const g = parseGml(el, name, srs)
    const column = (t.geometry?.type ?? 'GEOMETRY').toUpperCase().replace(/(ZM|Z|M)$/, '')
    let geo: Geo = g.geo
    const given = geo.type.toUpperCase()
    if (column.startsWith('MULTI') && given === column.slice(5) && geo.type !== 'GeometryCollection') geo = { type: `Multi${geo.type}`, coordinates: [geo.coordinates] } as Geo
    else if (column !== 'GEOMETRY' && column !== given) {
      throw WfsInvalidParameter(name, `gml:${el.local}`, `${t.qualified}.${name} holds ${column} geometries`)
    }
    const storage = storageOf(t)
    if (g.crs && storage && normalizeCrs(g.crs) !== normalizeCrs(storage)) {
      geo = reprojector(g.crs, storage)(geo)
      if (!(envelopeOf(geo) ?? []).every(Number.isFinite)) throw WfsInvalidParameter(name, `gml:${el.local}`, `cannot be taken from ${g.crs} to ${storage}`)
    }
    // A 2D column takes 2D positions.
    if (!/Z$/i.test(t.geometry?.type ?? '')) geo = JSON.parse(JSON.stringify(geo, (k, v) => Array.isArray(v) && typeof v[0] === 'number' ? v.slice(0, 2) : v)) as Geo
    return geojsonToWkb(geo)
  }

  /** A value as its attribute's binding says; empty or xsi:nil is null. */
  function scalar (t: ServedType, name: string, binding: string, el: XmlElement | undefined): EditValue {
    if (!el || Object.entries(el.attrs).some(([k, v]) => k.endsWith(':nil') && v === 'true')) return null
    const text = el.text
    const bad = (what: string): never => { throw WfsInvalidParameter(name, JSON.stringify(text.slice(0, 60)), `${t.qualified}.${name} takes ${what}`) }
    if (binding === 'java.lang.String') return text
    const v = text.trim()
    if (v === '') return null
    // Past 2^53 the text goes as it is: the database reads it exactly.
    if (/Integer|Short|Long|Byte|BigInteger/.test(binding)) return /^[-+]?\d{1,19}$/.test(v) ? (Number.isSafeInteger(Number(v)) ? Number(v) : v) : bad('a whole number')
    if (/Double|Float|BigDecimal/.test(binding)) return v !== '' && Number.isFinite(Number(v)) ? Number(v) : bad('a number')
    if (binding === 'java.lang.Boolean') return ['true', '1'].includes(v) ? true : ['false', '0'].includes(v) ? false : bad('true or false')
    if (binding === 'java.sql.Date') return /^\d{4}-\d{2}-\d{2}Z?$/.test(v) && !Number.isNaN(Date.parse(v.replace(/Z$/, ''))) ? v.replace(/Z$/, '') : bad('a date (yyyy-mm-dd)')
    if (binding === 'java.sql.Timestamp') return !Number.isNaN(Date.parse(v)) ? v : bad('an instant (ISO 8601)')
    return v
  }

  function valueOf (t: ServedType, propName: string, valueEl: XmlElement | undefined, srs: string | undefined): [string, EditValue] {
    const a = attribute(t, propName)
    if (isGeometryBinding(a.binding)) return [a.name, geometryValue(t, valueEl?.children[0], a.name, srs)]
    if (valueEl && valueEl.children.length > 0) throw WfsInvalidParameter(a.name, `<${valueEl.children[0].name}>`, `${t.qualified}.${a.name} takes text, not elements`)
    return [a.name, scalar(t, a.name, a.binding, valueEl)]
  }

  function filterOf (t: ServedType, el: XmlElement): Filter {
    const storage = storageOf(t)
    const localId = (id: string) => {
      for (const p of [`${t.ft.name}.`, `${t.qualified}.`]) if (id.startsWith(p)) return id.slice(p.length)
      return undefined
    }
    return parseOgcFilter(el, { attributes: t.attributes.map((a) => ({ name: a.name, type: filterType(a.binding) })), crs: storage ?? 'EPSG:4326', localId })
  }

  interface Planned { t: ServedType, edit: Edit }

  async function plan (root: XmlElement, principal: Principal | undefined, where: Where): Promise<Planned[]> {
    const rootScope = scopeOf(root, new Map())
    const out: Planned[] = []
    for (const action of root.children) {
      const scope = scopeOf(action, rootScope)
      switch (action.local) {
        case 'Insert': {
          const srs = action.attrs.srsName
          const features = action.children.flatMap((c) => c.local === 'FeatureCollection'
            ? c.children.flatMap((m) => m.local === 'featureMember' || m.local === 'featureMembers' ? m.children : [])
            : [c])
          for (const f of features) {
            const t = await typeOf(f.name, scopeOf(f, scope), principal, where)
            if (f.children.length === 0 && f.text.trim() !== '') throw WfsInvalidParameter('Insert', `<${f.name}>`, 'a feature to insert holds its properties as elements')
            const values: Record<string, EditValue> = {}
            const fScope = scopeOf(f, scope)
            for (const p of f.children) {
              // gml:boundedBy, gml:name... of the feature are GML's, not the type's properties.
              const i = p.name.indexOf(':')
              if (i > 0 && (scopeOf(p, fScope).get(p.name.slice(0, i)) ?? '').startsWith('http://www.opengis.net/gml')) continue
              const [name, v] = valueOf(t, p.name, p, srs)
              values[name] = v
            }
            const last = out[out.length - 1]
            if (last && last.edit.kind === 'insert' && last.t.qualified === t.qualified) last.edit.features.push(values)
            else out.push({ t, edit: { kind: 'insert', type: t.ft.nativeName, features: [values] } })
          }
          break
        }
        case 'Update': {
          const name = action.attrs.typeName ?? action.attrs.typeNames
          if (!name) throw WfsMissingParameter('typeName')
          const t = await typeOf(name, scope, principal, where)
          const values: Record<string, EditValue> = {}
          for (const p of action.children.filter((c) => c.local === 'Property')) {
            const n = kid(p, 'ValueReference', 'Name')?.text.trim()
            if (!n) throw WfsMissingParameter('ValueReference')
            const [attr, v] = valueOf(t, n, kid(p, 'Value'), action.attrs.srsName)
            values[attr] = v
          }
          if (Object.keys(values).length === 0) throw WfsMissingParameter('Property')
          const f = kid(action, 'Filter')
          out.push({ t, edit: { kind: 'update', type: t.ft.nativeName, values, ...(f ? { filter: filterOf(t, f) } : {}) } })
          break
        }
        case 'Delete': {
          const name = action.attrs.typeName ?? action.attrs.typeNames
          if (!name) throw WfsMissingParameter('typeName')
          const t = await typeOf(name, scope, principal, where)
          const f = kid(action, 'Filter')
          if (!f) throw WfsMissingParameter('Filter')
          out.push({ t, edit: { kind: 'delete', type: t.ft.nativeName, filter: filterOf(t, f) } })
          break
        }
        case 'LockId': break
        case 'Native':
          if (action.attrs.safeToIgnore === 'true') break
          throw WfsOperationNotSupported('Native', 'no vendor-specific actions are offered')
        case 'Replace': throw WfsOperationNotSupported('Replace', 'a Transaction here inserts, updates and deletes')
        default: throw WfsInvalidParameter('Transaction', `<${action.name}>`, 'a Transaction holds Insert, Update and Delete actions')
      }
    }
    return out
  }

  return async function transaction (version: WfsVersion, root: XmlElement, principal: Principal | undefined, where: Where): Promise<TransactionAnswer> {
    for (const a of ['releaseAction', 'lockAction']) {
      const v = root.attrs[a]
      if (v !== undefined && v !== 'ALL' && v !== 'SOME') throw WfsInvalidParameter(a, JSON.stringify(v.slice(0, 20)), 'ALL or SOME is expected')
    }
    const planned = await plan(root, principal, where)
    const stores = new Set(planned.map((p) => `${p.t.store.workspace}:${p.t.store.name}`))
    if (stores.size > 1) throw WfsInvalidParameter('Transaction', [...stores].join(', '), 'a Transaction edits the types of one data store (all or nothing in one database transaction)')
    const lockId = (root.attrs.lockId ?? kid(root, 'LockId')?.text ?? '').trim() || undefined
    const results: EditResult[] = []
    if (planned.length > 0) {
      const source = ctx.sourceOf(planned[0].t)
      const view = planned.find((p) => p.t.ft.config.virtualTable)
      if (view) throw WfsOperationNotSupported('Transaction', `${view.t.qualified} is an SQL view, which is read-only`)
      const write = source.write?.bind(source)
      if (!write) throw WfsOperationNotSupported('Transaction', `${planned[0].t.qualified} is read from ${planned[0].t.store.type} files, which this server does not edit (PostGIS and GeoPackage layers are editable)`)
      const edited = [...new Set(planned.filter((p) => p.edit.kind !== 'insert').map((p) => p.t.qualified))]
      // The check, the write and the release under the guard of the edited types: no lock is taken
      // on them in between (locks.ts guarded).
      await locks.guarded(lockId, edited, async (l) => {
        const changed = await l.mustCheck(lockId, edited) ? await changedFeatures(planned) : []
        await l.checkTransaction(lockId, changed)
        results.push(...await write(planned.map((p) => p.edit)))
        await l.afterTransaction(lockId, root.attrs.releaseAction !== 'SOME', changed)
      })
      await dropTiles(planned.map((p, i) => ({ t: p.t, area: results[i].area, count: results[i].count })))
    } else {
      // A Transaction of a LockId alone releases its lock.
      await locks.guarded(lockId, [], async (l) => {
        await l.checkTransaction(lockId, [])
        await l.afterTransaction(lockId, root.attrs.releaseAction !== 'SOME', [])
      })
    }
    const total = (kind: Edit['kind']) => planned.reduce((n, p, i) => n + (p.edit.kind === kind ? results[i].count : 0), 0)
    const ids = planned.flatMap((p, i) => results[i].ids.map((id) => `${p.t.ft.name}.${id}`))
    return { contentType: 'text/xml', body: response(version, total('insert'), total('update'), total('delete'), ids) }
  }

  /** The features the Updates and Deletes match (before any is written), as locks name them. */
  async function changedFeatures (planned: Planned[]): Promise<LockedFeature[]> {
    const out: LockedFeature[] = []
    for (const p of planned) {
      if (p.edit.kind === 'insert') continue
      const read = { type: p.edit.type, properties: [], ...(p.edit.filter ? { filter: p.edit.filter } : {}) }
      for await (const f of ctx.sourceOf(p.t).readFeatures(read)) if (f.id !== undefined) out.push({ type: p.t.qualified, fid: `${p.t.ft.name}.${f.id}` })
    }
    return out
  }

  /** The tiles over the touched area of each layer go (as lon/lat boxes), the groups drawing it with them. */
  async function dropTiles (touched: Array<{ t: ServedType, area?: Envelope, count: number }>): Promise<void> {
    const byLayer = new Map<string, { t: ServedType, areas: Envelope[] }>()
    for (const x of touched) {
      if (x.count === 0) continue
      const layer = `${x.t.ft.workspace}:${x.t.ft.name}`
      const entry = byLayer.get(layer) ?? { t: x.t, areas: [] }
      if (x.area) entry.areas.push(x.area)
      byLayer.set(layer, entry)
    }
    for (const [layer, { t, areas }] of byLayer) {
      const srid = t.geometry?.srid ?? 0
      const lonLat = srid > 0 ? await Promise.all(areas.map((a) => ctx.sourceOf(t).toLatLon(a, srid))) : undefined
      await ctx.deps.dataChanged([layer], lonLat, `WFS Transaction on ${layer}`)
    }
  }
}

const x = (s: string) => escapeXml(s)

/** The TransactionResponse of each version, as GeoServer writes it. */
export function response (version: WfsVersion, inserted: number, updated: number, deleted: number, ids: string[]): string {
  if (version === '1.0.0') {
    const inserts = ids.length > 0 ? ids.map((id) => `<wfs:InsertResult><ogc:FeatureId fid="${x(id)}"/></wfs:InsertResult>`).join('') : '<wfs:InsertResult><ogc:FeatureId fid="none"/></wfs:InsertResult>'
    return '<?xml version="1.0" encoding="UTF-8"?>\n<wfs:WFS_TransactionResponse version="1.0.0" xmlns:wfs="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.0.0/WFS-transaction.xsd">' +
      `${inserts}<wfs:TransactionResult><wfs:Status><wfs:SUCCESS/></wfs:Status></wfs:TransactionResult></wfs:WFS_TransactionResponse>`
  }
  if (version === '1.1.0') {
    const features = (ids.length > 0 ? ids : ['none']).map((id) => `<wfs:Feature><ogc:FeatureId fid="${x(id)}"/></wfs:Feature>`).join('')
    return '<?xml version="1.0" encoding="UTF-8"?><wfs:TransactionResponse xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs" ' +
      'xmlns:gml="http://www.opengis.net/gml" xmlns:ogc="http://www.opengis.net/ogc" xmlns:ows="http://www.opengis.net/ows" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
      'version="1.1.0" xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.1.0/wfs.xsd">' +
      `<wfs:TransactionSummary><wfs:totalInserted>${inserted}</wfs:totalInserted><wfs:totalUpdated>${updated}</wfs:totalUpdated><wfs:totalDeleted>${deleted}</wfs:totalDeleted></wfs:TransactionSummary>` +
      `<wfs:TransactionResults/><wfs:InsertResults>${features}</wfs:InsertResults></wfs:TransactionResponse>`
  }
  const features = ids.map((id) => `<wfs:Feature><fes:ResourceId rid="${x(id)}"/></wfs:Feature>`).join('')
  return '<?xml version="1.0" encoding="UTF-8"?><wfs:TransactionResponse xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:fes="http://www.opengis.net/fes/2.0" ' +
    'xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:ows="http://www.opengis.net/ows/1.1" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="2.0.0" xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd">' +
    `<wfs:TransactionSummary><wfs:totalInserted>${inserted}</wfs:totalInserted><wfs:totalUpdated>${updated}</wfs:totalUpdated><wfs:totalReplaced>0</wfs:totalReplaced><wfs:totalDeleted>${deleted}</wfs:totalDeleted></wfs:TransactionSummary>` +
    (features ? `<wfs:InsertResults>${features}</wfs:InsertResults>` : '') + '</wfs:TransactionResponse>'
}
