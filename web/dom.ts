// The DOM helpers every panel uses: an element by id (a missing one is a bug in index.html), an
// element built with attributes and children (no innerHTML: the strict CSP and untrusted names),
// the status line, and a select filled with options.
export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const el = document.getElementById(id)
  if (!el) throw new Error(`missing #${id}`)
  return el as T
}

export function el<K extends keyof HTMLElementTagNameMap> (tag: K, props: Partial<Record<string, string>> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(props)) if (v !== undefined) e.setAttribute(k, v)
  for (const c of children) e.append(c)
  return e
}

export function say (text: string, error = false) {
  const m = $('message')
  m.textContent = text
  m.className = error ? 'error' : ''
  m.hidden = false
}

/** The message of a failed call, in the status line as an error. */
export const sayError = (err: unknown) => say((err as Error).message, true)

export function fillSelect (select: HTMLSelectElement, values: Array<string | number>, selected?: string, blank?: string) {
  select.replaceChildren(...(blank !== undefined ? [el('option', { value: '' }, blank)] : []),
    ...values.map((v) => el('option', { value: String(v) }, String(v))))
  if (selected !== undefined) select.value = selected
}

/** The value of a form's control by name. */
export const field = <T extends HTMLInputElement | HTMLSelectElement = HTMLInputElement>(form: HTMLFormElement, name: string): T =>
  form.elements.namedItem(name) as T
