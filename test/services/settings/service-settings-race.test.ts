// The service settings are held in memory and re-read when another instance announces a change.
// A re-read whose rows were read before this instance's own change committed must never install
// them after that change: changes and reloads run one at a time, as the global settings' do.
import t from 'tap'
import { createServiceSettings } from '../../../services/settings/service-settings.js'
import type { ServiceSettingsRow, ServiceSettingsStore } from '../../../services/settings/store.js'

t.test('a reload in flight does not undo a change made meanwhile', async (t) => {
  const rows = new Map<string, string>()
  let hold: Promise<void> | undefined
  const store: ServiceSettingsStore = {
    async readAll () {
      const snapshot: ServiceSettingsRow[] = [...rows].map(([k, body]) => { const [service, workspace] = k.split('@'); return { service, workspace, body } })
      if (hold) await hold
      return snapshot
    },
    async change (service, workspace, apply) {
      const k = `${service}@${workspace}`
      const body = apply(rows.get(k))
      rows.set(k, body)
      return body
    },
    async remove (service, workspace) { return rows.delete(`${service}@${workspace}`) }
  }
  const settings = createServiceSettings({ store })
  await settings.update('wms', { title: 'First' })
  let open!: () => void
  hold = new Promise<void>((resolve) => { open = resolve })
  const reload = settings.reload() // would read the rows as they are now, then wait
  const change = settings.update('wms', { title: 'Second', enabled: false })
  open()
  await Promise.all([reload, change])
  t.equal(settings.get('wms').title, 'Second', 'the change is what memory holds')
  t.equal(settings.get('wms').enabled, false)
  hold = undefined
  await settings.reload()
  t.equal(settings.get('wms').title, 'Second')
  t.equal(settings.get('wfs').maxFeatures, 1000000, 'other services keep their defaults')
})
