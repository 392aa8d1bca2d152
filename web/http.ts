// The REST calls every panel makes: the server's base path (the page is served at {base}/web/),
// the REST and tile cache roots under it, and fetch with the login cookie that throws on an error
// status with the answer's first 300 characters, which the page shows as they are.
export const BASE = location.pathname.replace(/\/web\/[^/]*$/, '')
export const REST = `${BASE}/rest`
export const CACHE = `${BASE}/tilecache/rest`

export async function call (url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { credentials: 'same-origin', ...init })
  if (!res.ok) {
    const text = (await res.text()).slice(0, 300)
    throw new Error(`${init.method ?? 'GET'} ${url.replace(BASE, '')}: ${res.status} ${text}`)
  }
  return res
}

export const getJson = async <T>(url: string): Promise<T> => (await call(url, { headers: { accept: 'application/json' } })).json() as Promise<T>

/** GeoServer's JSON writes a one-item list as the item itself and an empty one as "". */
export const asList = <T>(v: unknown): T[] => Array.isArray(v) ? v : v && typeof v === 'object' ? [v as T] : []

/** A JSON body sent with PUT or POST. */
export const sendJson = (url: string, method: 'PUT' | 'POST', body: unknown): Promise<Response> =>
  call(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
