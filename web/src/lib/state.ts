// The page's navigation state, kept in the URL fragment (`#view=histogram&object=0x1f00`),
// so a reload or a shared link returns to the same view and object once the same dump is
// dropped again. Nothing from the fragment is trusted: unknown views fall back to the
// overview and an object must be a hex address.

export const VIEW_IDS = [
  'overview', 'histogram', 'suspects', 'consumers', 'dominators', 'classes', 'treemap', 'inspector', 'path', 'merge', 'compare',
] as const;
export type ViewId = (typeof VIEW_IDS)[number];

export interface PageState {
  view: ViewId;
  /** Selected object address, lower-case hex with 0x, or null. */
  object: string | null;
  /** Classes up: the rows open, each a column of class object addresses from the bottom
   * up (`rows=0x1,0x2;0x3`); empty when none. */
  rows?: string[][];
  /** Comparison: the class table's sort column (`delta.retained_bytes_min`, `class_name`…;
   * the view checks it) and order (`asc`/`desc`); absent: the default. */
  sort?: string;
  order?: 'asc' | 'desc';
}

export const DEFAULT_STATE: PageState = { view: 'overview', object: null };

const OBJECT_RE = /^0x[0-9a-f]{1,16}$/;
const SORT_RE = /^[a-z_.]{1,40}$/;

/** At most this many open rows are kept in the URL. */
const MAX_OPEN_ROWS = 50;

function parseRows(text: string | null): string[][] {
  if (!text) return [];
  return text
    .split(';')
    .slice(0, MAX_OPEN_ROWS)
    .map((column) => column.split(',').map((a) => a.toLowerCase()))
    .filter((column) => column.length > 0 && column.length <= 64 && column.every((a) => OBJECT_RE.test(a)));
}

export function parseFragment(hash: string): PageState {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const view = params.get('view');
  const object = params.get('object')?.toLowerCase() ?? null;
  const rows = parseRows(params.get('rows'));
  const state: PageState = {
    view: (VIEW_IDS as readonly string[]).includes(view ?? '') ? (view as ViewId) : DEFAULT_STATE.view,
    object: object !== null && OBJECT_RE.test(object) ? object : null,
  };
  if (rows.length) state.rows = rows;
  const sort = params.get('sort');
  const order = params.get('order');
  if (sort && SORT_RE.test(sort)) state.sort = sort;
  if (order === 'asc' || order === 'desc') state.order = order;
  return state;
}

export function formatFragment(state: PageState): string {
  const params = new URLSearchParams();
  if (state.view !== DEFAULT_STATE.view) params.set('view', state.view);
  if (state.object) params.set('object', state.object);
  if (state.rows?.length) params.set('rows', state.rows.map((c) => c.join(',')).join(';'));
  if (state.sort) params.set('sort', state.sort);
  if (state.order) params.set('order', state.order);
  const s = params.toString();
  return s ? `#${s}` : '';
}

type Listener = (state: PageState) => void;

/** The current state, mirrored to `location.hash` and updated on back/forward. */
export class StateStore {
  private listeners: Listener[] = [];
  private current: PageState;

  constructor(private readonly win: Window = window) {
    this.current = parseFragment(win.location.hash);
    win.addEventListener('hashchange', () => {
      this.current = parseFragment(win.location.hash);
      this.emit();
    });
  }

  get(): PageState {
    return this.current;
  }

  /** Merges `patch` into the state; pushes a history entry when the view changes. */
  set(patch: Partial<PageState>): void {
    const previous = this.current;
    const fragment = formatFragment({ ...previous, ...patch });
    this.current = parseFragment(fragment);
    const url = `${this.win.location.pathname}${this.win.location.search}${fragment}`;
    if (this.current.view !== previous.view) this.win.history.pushState(null, '', url);
    else this.win.history.replaceState(null, '', url);
    this.emit();
  }

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
  }

  private emit(): void {
    for (const l of this.listeners) l(this.current);
  }
}
