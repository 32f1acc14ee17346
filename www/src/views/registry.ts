// The views of an opened dump, in navigation order. Each one is filled from the worker's
// answers once the analysis core lands; until then it says so (no made-up numbers).
import type { ViewId } from '../lib/state';

export interface ViewInfo {
  id: ViewId;
  title: string;
  /** What the view will show once the analysis runs in the worker. */
  plan: string;
  /** Whether the view is about the selected object (#object=0x… in the URL). */
  usesSelection?: boolean;
}

export const VIEWS: readonly ViewInfo[] = [
  {
    id: 'overview',
    title: 'Overview',
    plan: 'the heap summary (objects, used heap, classes, class loaders), GC roots by type, and objects discarded as unreachable.',
  },
  {
    id: 'histogram',
    title: 'Histogram',
    plan: 'instances, shallow heap and retained heap per class; sortable, filterable, grouped by package or class loader.',
  },
  {
    id: 'suspects',
    title: 'Leak suspects',
    plan: 'objects and groups of objects retaining more than 10% of the heap, each with its accumulation point and the path to it.',
  },
  {
    id: 'consumers',
    title: 'Top consumers',
    plan: 'the biggest objects, classes, class loaders and packages (each over 1% of the heap).',
  },
  {
    id: 'dominators',
    title: 'Dominator tree',
    plan: 'which object keeps which alive, expanded level by level and sorted by retained size.',
  },
  {
    id: 'treemap',
    title: 'Treemap',
    plan: 'a zoomable map of the dominator tree by retained size, with crowded levels grouped by class.',
  },
  {
    id: 'inspector',
    title: 'Inspector',
    plan: 'the fields of the selected object, read back from the dump, and the objects known to refer to it.',
    usesSelection: true,
  },
  {
    id: 'path',
    title: 'Path to GC roots',
    plan: 'the chain of references from a GC root that keeps the selected object alive.',
    usesSelection: true,
  },
];
