// The parts of a request URL as a server reads them, for the checks that must see every spelling
// a client can send: the NUL refusal (negotiate.ts) and the redaction of secrets from every log
// line that prints a URL (the request log of ../app.ts, slow-clients.ts, negotiate.ts).

/**
 * A query string's name or value decoded as form decoding does ('+' is a space, %XX escapes as
 * UTF-8), tolerating bad escapes: in a run of escapes that is not valid UTF-8 only the ASCII ones
 * are decoded, the rest stays as sent, and the rest of the text is still decoded (decodeURIComponent would give up on the whole text).
 */
export function decodeQueryPart (text: string): string {
  return text.replace(/\+/g, ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    try { return decodeURIComponent(run) } catch { return run.replace(/%([0-7][0-9a-fA-F])/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))) }
  })
}

/** A query string's name=value pairs as sent (not decoded); `separators` splits them. */
export function queryPairs (query: string, separators: RegExp = /&/): Array<{ name: string, value: string | undefined }> {
  return query.split(separators).filter((pair) => pair !== '').map((pair) => {
    const eq = pair.indexOf('=')
    return eq < 0 ? { name: pair, value: undefined } : { name: pair.slice(0, eq), value: pair.slice(eq + 1) }
  })
}

/**
 * A parameter name reduced to what it says: decoded (twice more for double encoding), NFKC
 * (fullwidth letters), lower case, and nothing but letters and digits, so `Pass_Word[]`,
 * `password%5B%5D`, `password%00`, `password+`, `x-api-key` read password, password, password,
 * password, xapikey.
 */
function normaliseName (name: string): string {
  let decoded = name
  for (let i = 0; i < 3; i++) {
    const next = decodeQueryPart(decoded)
    if (next === decoded) break
    decoded = next
  }
  return decoded.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')
}

/**
 * Names that carry a secret, matched anywhere in the normalised name: password (passwd, pwd,
 * passphrase, a name ending in pass), secret, token (access_token, id_token), apikey, auth
 * (authorization, authkey: GeoServer's authkey module, oauth), jwt, session (jsessionid),
 * credential(s), signature (pre-signed URLs), cookie; and key at the end of a name (key, api_key,
 * accesskey, privatekey). GeoServer's and GeoWebCache's own parameters (layers, styles, format,
 * cql_filter, viewparams, env, tilematrix, keywords...) hold none of these, so they stay readable;
 * a harmless name that does (author, bypass) is redacted, which costs a log reader nothing.
 */
const SECRET_NAME = /pass(word|wd|phrase)|pwd|secret|token|apikey|auth|jwt|session|credential|signature|cookie|pass$|key$/
/** A value that is a JSON Web Token whatever its parameter is called. */
const JWT_VALUE = /^eyJ[\w-]*\.eyJ[\w-]*\.[\w-]*$/

export const isSecretName = (name: string): boolean => SECRET_NAME.test(normaliseName(name))

const REDACTED = '[redacted]'

/** name=value pairs separated by & or ; (both separate parameters in the servlet world). */
function redactPairs (text: string): string {
  return text.replace(/([^&;=]*)=([^&;]*)/g, (pair, name: string, value: string) =>
    value !== '' && (isSecretName(name) || JWT_VALUE.test(decodeQueryPart(value))) ? `${name}=${REDACTED}` : pair)
}

/**
 * A request URL for a log line: the values of secret-named query parameters (any spelling, & or ;
 * separated) and of path parameters (`/web;jsessionid=...`) replaced, and credentials in an
 * absolute-form target (`http://user:password@host/`) too.
 */
export function redactUrl (url: string): string {
  const q = url.indexOf('?')
  const path = (q < 0 ? url : url.slice(0, q)).replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, `$1${REDACTED}@`)
    .replace(/;[^/]*/g, (params) => redactPairs(params))
  return q < 0 ? path : `${path}?${redactPairs(url.slice(q + 1))}`
}
