// The global settings are held in memory and re-read when another instance announces a change.
// A re-read whose row was read before this instance's own change committed must never install it
// after that change (CI saw parallel PUTs lose the last contact field and the update sequence).
import t from 'tap'
import { createSettingsService } from '../../../services/settings/settings.js'
import type { SettingsStore } from '../../../services/settings/store.js'

t.test('a reload in flight does not undo a change made meanwhile', async (t) => {
  let row: string | undefined
  let hold: { opened: Promise<void>, open: () => void } | undefined
  const store: SettingsStore = {
    async read () {
      const snapshot = row
      if (hold) await hold.opened
      return snapshot
    },
    async change (apply) { row = apply(row); return row }
  }
  const settings = createSettingsService({ store })
  await settings.update({ settings: { numDecimals: 3 } })
  let open!: () => void
  hold = { opened: new Promise<void>((resolve) => { open = resolve }), open: () => open() }
  const reload = settings.reload() // would read the row as it is now, then wait
  const change = settings.updateContact({ contactPerson: 'Ada' })
  hold.open()
  await Promise.all([reload, change])
  t.same(settings.get().settings.contact, { contactPerson: 'Ada' }, 'the change is what memory holds')
  t.equal(settings.get().updateSequence, 2)
  t.equal(settings.get().settings.numDecimals, 3)
  hold = undefined
  await settings.reload()
  t.equal(settings.get().updateSequence, 2)
})
