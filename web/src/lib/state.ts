// The page's navigation state, kept in the URL fragment (`#view=histogram&object=0x1f00`),
// so a reload or a shared link returns to the same view and object once the same dump is
// dropped again. Nothing from the fragment is trusted: unknown views fall back to the
// overview and an object must be a hex address.

export const VIEW_IDS = [
  'overview', 'histogram', 'leaks', 'suspects', 'consumers', 'threads', 'waste', 'dominators', 'classes', 'treemap', 'inspector', 'path', 'merge', 'compare',
] as const;
export type ViewId = (typeof VIEW_IDS)[number];

export interface PageState {
  view: ViewId;
  /** Selected object address, lower-case hex with 0x, or null. */
  object: string | null;
  /** Classes up: the rows open, each a column of class object addresses from the bottom
   * up (`rows=0x1,0x2;0x3`); empty when none. */
  rows?: string[][];
  /** The sort of the comparison's class table (`delta.retained_bytes_min`, `class_name`…)
   * or of the waste view (`count`, `-count` for descending); each view checks it. `order`
   * (`asc`/`desc`): the comparison's order; absent: the default. */
  sort?: string;
  order?: 'asc' | 'desc';
  /** The dominator tree shown: absent for MAT's (the default), `strength` for the
   * strength-aware one (`tree=strength`). */
  tree?: 'strength';
  /** Dominator tree: grouped by class (`group=class`). */
  group?: boolean;
  /** Dominator tree: the expanded rows (`open=0x1,0x2`): object addresses, or with
   * `group=class` each group's path of class object addresses (`0x1/0x2`). */
  open?: string[];
  /** Treemap: the objects zoomed into, outermost first (`zoom=0x1,0x2`). */
  zoom?: string[];
  /** Threads: the threads open, and their frames open as `thread/frame index` (`-1`: the
   * locals of no listed frame): `threads=0x1,0x1/0,0x2`. */
  threads?: string[];
  /** Waste: the kind shown (`kind=strings`) and the duplicate group open (`dup=0x…`, its
   * first member's address). */
  kind?: string;
  dup?: string;
  /** Leaks: the leak open, by its signature (`leak=<40 hex digits>`). */
  leak?: string;
}

export const DEFAULT_STATE: PageState = { view: 'overview', object: null };

const OBJECT_RE = /^0x[0-9a-f]{1,16}$/;
/** A leak's signature: a SHA-1 in hex. */
const SIGNATURE_RE = /^[0-9a-f]{40}$/;
const SORT_RE = /^-?[a-z0-9_.]{1,40}$/;

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

const OPEN_RE = /^0x[0-9a-f]{1,16}(\/0x[0-9a-f]{1,16}){0,63}$/;

function parseOpen(text: string | null): string[] {
  if (!text) return [];
  return text.toLowerCase().split(',').filter((k) => OPEN_RE.test(k)).slice(0, MAX_OPEN_ROWS);
}

/** A short word of letters, digits and underscores, optionally after a "-". */
const WORD_RE = /^-?[a-z_][a-z0-9_]{0,40}$/;

/** A thread's address, or one of its frames (`0x1/3`, `0x1/-1`). */
const THREAD_KEY_RE = /^0x[0-9a-f]{1,16}(\/-?[0-9]{1,6})?$/;

function parseThreads(text: string | null): string[] {
  if (!text) return [];
  return text.toLowerCase().split(',').filter((k) => THREAD_KEY_RE.test(k)).slice(0, MAX_OPEN_ROWS);
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
  if (params.get('tree') === 'strength') state.tree = 'strength';
  if (params.get('group') === 'class') state.group = true;
  const open = parseOpen(params.get('open'));
  if (open.length) state.open = open;
  const zoom = (params.get('zoom') ?? '').toLowerCase().split(',').filter((a) => OBJECT_RE.test(a)).slice(0, MAX_OPEN_ROWS);
  if (zoom.length) state.zoom = zoom;
  const threads = parseThreads(params.get('threads'));
  if (threads.length) state.threads = threads;
  const kind = params.get('kind');
  if (kind !== null && WORD_RE.test(kind)) state.kind = kind;
  const dup = params.get('dup')?.toLowerCase();
  if (dup && OBJECT_RE.test(dup)) state.dup = dup;
  const leak = params.get('leak')?.toLowerCase();
  if (leak && SIGNATURE_RE.test(leak)) state.leak = leak;
  return state;
}

export function formatFragment(state: PageState): string {
  const params = new URLSearchParams();
  if (state.view !== DEFAULT_STATE.view) params.set('view', state.view);
  if (state.object) params.set('object', state.object);
  if (state.rows?.length) params.set('rows', state.rows.map((c) => c.join(',')).join(';'));
  if (state.sort) params.set('sort', state.sort);
  if (state.order) params.set('order', state.order);
  if (state.tree === 'strength') params.set('tree', 'strength');
  if (state.group) params.set('group', 'class');
  if (state.open?.length) params.set('open', state.open.join(','));
  if (state.zoom?.length) params.set('zoom', state.zoom.join(','));
  if (state.threads?.length) params.set('threads', state.threads.join(','));
  if (state.kind) params.set('kind', state.kind);
  if (state.dup) params.set('dup', state.dup);
  if (state.leak) params.set('leak', state.leak);
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

  /** Forgets everything (a new dump starts clean): the default state, without a history
   * entry and without telling the listeners (the new dump's views are drawn from it). */
  reset(): void {
    this.current = { ...DEFAULT_STATE };
    this.win.history.replaceState(null, '', `${this.win.location.pathname}${this.win.location.search}`);
  }

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
  }

  private emit(): void {
    for (const l of this.listeners) l(this.current);
  }
}
