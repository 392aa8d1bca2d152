// The one XML escaper of mapwarden's documents (services and plugins): &, <, > and both quotes, so
// the result is safe as text and in an attribute of either quote. `apostrophe: false` keeps ' as
// is, for the few documents whose bytes were written that way (their attributes use double quotes).
const ALL = /[&<>"']/g
const NO_APOSTROPHE = /[&<>"]/g
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

export function escapeXml (s: string, { apostrophe = true }: { apostrophe?: boolean } = {}): string {
  return s.replace(apostrophe ? ALL : NO_APOSTROPHE, (c) => ENTITY[c])
}
