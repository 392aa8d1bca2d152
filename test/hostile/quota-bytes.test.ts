// Disk-quota values keep whole bytes (hostile round two, 5 and 10): a fraction of a unit is
// computed exactly and stored as whole bytes; a value past the largest exact one is refused.
import t from 'tap'
import { build, ADMIN, BASE } from '../helper.js'

const URL = `${BASE}/gwc/rest/diskquota.json`
const put = (app: any, value: string, units: string) => app.inject({ method: 'PUT', url: URL, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ gwcQuotaConfiguration: { globalQuota: { value, units } } }) })

t.test('quota values are whole bytes, exact', async (t) => {
  const app = await build(t)
  for (const [value, units, shown] of [
    ['0.0000001', 'GiB', { value: '107', units: 'B' }], // 107.3741824 bytes: whole bytes only
    ['1.5', 'GiB', { value: '1.5', units: 'GiB' }],
    ['1023.5', 'KiB', { value: '1023.5', units: 'KiB' }],
    ['9007199254740991', 'B', { value: '7.999999999999999', units: 'PiB' }]
  ] as Array<[string, string, { value: string, units: string }]>) {
    const res = await put(app, value, units)
    t.equal(res.statusCode, 200, `${value} ${units}`)
    const q = JSON.parse((await app.inject({ method: 'GET', url: URL, headers: ADMIN })).body)
    const got = (q.tilecacheQuotaConfiguration ?? q.gwcQuotaConfiguration).globalQuota
    t.same({ value: got.value, units: got.units }, shown, `${value} ${units} reads back as whole bytes`)
  }
  const before = (await app.inject({ method: 'GET', url: URL, headers: ADMIN })).body
  for (const [value, units] of [['99999999999999999999999', 'GiB'], ['9007199254740992', 'B'], ['8', 'EiB'], ['1e300', 'B']]) {
    const res = await put(app, value, units)
    t.equal(res.statusCode, 400, `${value} ${units}`)
    t.match(res.body, /^globalQuota is too large: /)
  }
  t.equal((await app.inject({ method: 'GET', url: URL, headers: ADMIN })).body, before, 'a refused PUT changes nothing')
})
