/**
 * The playground's whole DOM toolkit: `h()` builds an element from attributes and children, with
 * text always set as text (server strings never become markup), and `uid()` hands out ids for
 * label/field pairs. No framework: the page is a handful of forms and lists.
 */

type Child = Node | string | number | false | null | undefined
type Attributes = Record<string, string | number | boolean | ((event: Event) => void) | undefined>

/**
 * @example
 * h('button', { type: 'button', onclick: () => run() }, 'Call')
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value)
    else if (value === true) element.setAttribute(name, '')
    else element.setAttribute(name, String(value))
  }
  append(element, ...children)
  return element
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)))
  }
}

let counter = 0

/** A page-unique id with a readable prefix. */
export function uid(prefix: string): string {
  counter++
  return `${prefix.replace(/[^A-Za-z0-9_-]/g, '-')}-${counter}`
}

/** `JSON.stringify` for people: indented, stable. */
export const pretty = (value: unknown) => JSON.stringify(value, null, 2)
