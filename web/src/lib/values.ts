// Values where the reference is: every object link on the page (`a.obj[data-address]`,
// made by objectLink) gets the object's text beside it, as MAT shows it (a String's value,
// a boxed number, a class's, thread's or enum's name, a collection's size, a map node's
// key), asked from the worker in batches (the `values` query) as links appear. The text
// comes from the dump: it is set with textContent only.
import type { Queries } from './queries';

/** Addresses asked per question (the core answers at most 500). */
const BATCH = 200;

export class ValueDecorator {
  private readonly texts = new Map<string, string | null>();
  private readonly pending = new Set<string>();
  private scheduled = false;
  private readonly observer: MutationObserver;

  constructor(
    private readonly q: Queries,
    private readonly root: HTMLElement,
  ) {
    this.observer = new MutationObserver(() => this.schedule());
    this.observer.observe(root, { childList: true, subtree: true });
    this.schedule();
  }

  stop(): void {
    this.observer.disconnect();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the view has drawn its rows (a microtask would run before the batch ends).
    window.setTimeout(() => {
      this.scheduled = false;
      this.decorate();
    }, 30);
  }

  private links(): HTMLAnchorElement[] {
    return Array.from(this.root.querySelectorAll<HTMLAnchorElement>('a.obj[data-address]:not([data-value-done]):not([data-no-value])'));
  }

  private decorate(): void {
    const ask: string[] = [];
    for (const a of this.links()) {
      const address = a.dataset.address ?? '';
      if (this.texts.has(address)) this.apply(a, this.texts.get(address) ?? null);
      else if (!this.pending.has(address) && ask.length < BATCH) {
        this.pending.add(address);
        ask.push(address);
      }
    }
    if (!ask.length) return;
    this.q.ask({ query: 'values', objects: ask }).then(
      (values) => {
        for (const v of values) this.texts.set(v.address, v.text ?? null);
        for (const a of ask) {
          if (!this.texts.has(a)) this.texts.set(a, null);
          this.pending.delete(a);
        }
        this.decorate();
      },
      () => {
        for (const a of ask) {
          this.texts.set(a, null);
          this.pending.delete(a);
        }
      },
    );
  }

  private apply(a: HTMLAnchorElement, text: string | null): void {
    a.dataset.valueDone = '';
    if (text === null) return;
    // An empty String shows as "", not as nothing (no text is `null`).
    const shown = text === '' ? '""' : text;
    const span = document.createElement('span');
    span.className = 'val';
    span.textContent = ` ${shown}`;
    span.title = text === '' ? 'an empty string' : text;
    // One line; a click shows the whole value in place (and hides it again).
    span.addEventListener('click', () => span.classList.toggle('open'));
    a.dataset.value = text;
    a.after(span);
  }
}
