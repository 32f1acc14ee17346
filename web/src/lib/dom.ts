// Safe DOM building. Everything that comes from a dump (class names, strings, file names,
// error messages) reaches the page through these helpers, which only ever create elements
// and set `textContent` or a small allow-list of attributes. There is no way here to parse
// markup: no innerHTML, outerHTML, insertAdjacentHTML or document.write anywhere in the
// page (a test checks the sources, and Trusted Types in the CSP makes those sinks throw).

export type Child = Node | string | number | null | undefined | false;

/** Attributes that cannot carry script or fetch anything. `href` only takes fragments. */
const SAFE_ATTRIBUTES = new Set([
  'id', 'class', 'title', 'role', 'type', 'name', 'value', 'for', 'tabindex', 'hidden',
  'disabled', 'max', 'min', 'step', 'placeholder', 'autocomplete', 'spellcheck', 'dir', 'lang',
  'scope', 'colspan', 'rowspan', 'multiple', 'accept', 'open',
]);

export interface Attributes {
  [name: string]: string | number | boolean | null | undefined;
}

function setAttribute(el: Element, name: string, value: string | number | boolean): void {
  const ok =
    SAFE_ATTRIBUTES.has(name) || name.startsWith('data-') || name.startsWith('aria-') ||
    (name === 'href' && typeof value === 'string' && value.startsWith('#'));
  if (!ok) throw new Error(`dom: attribute "${name}" is not on the safe list`);
  if (value === true) el.setAttribute(name, '');
  else if (value !== false) el.setAttribute(name, String(value));
}

/** `h('p', {class: 'x'}, 'text', child)`: an element with safe attributes and text/children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  if (tag === ('script' as K) || tag === ('iframe' as K) || tag === ('object' as K) || tag === ('embed' as K)) {
    throw new Error(`dom: <${tag}> is not allowed`);
  }
  const el = document.createElement(tag);
  if (attributes) {
    for (const [name, value] of Object.entries(attributes)) {
      if (value !== null && value !== undefined) setAttribute(el, name, value);
    }
  }
  append(el, ...children);
  return el;
}

/** Appends children; strings and numbers become text nodes (never markup). */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces all children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** Sets an element's text (and nothing else). */
export function setText(el: Element, text: string | number): void {
  el.textContent = String(text);
}

/** Looks up an element that the shell created; throws if it is missing (a bug). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`dom: #${id} not found`);
  return el as T;
}
