// The views of an opened dump, in navigation order.
import type { ViewId } from '../lib/state';

export interface ViewInfo {
  id: ViewId;
  title: string;
  /** Whether the view reads the dump (queries): not available for a report opened from JSON. */
  needsDump?: boolean;
  /** Whether the view is about the selected object (#object=0x… in the URL). */
  usesSelection?: boolean;
}

export const VIEWS: readonly ViewInfo[] = [
  { id: 'overview', title: 'Overview' },
  { id: 'histogram', title: 'Histogram' },
  { id: 'leaks', title: 'Leaks' },
  { id: 'suspects', title: 'Leak suspects' },
  { id: 'consumers', title: 'Top consumers' },
  { id: 'threads', title: 'Threads' },
  { id: 'waste', title: 'Waste' },
  { id: 'dominators', title: 'Dominator tree', needsDump: true },
  { id: 'classes', title: 'Classes up', needsDump: true },
  { id: 'treemap', title: 'Treemap', needsDump: true },
  { id: 'inspector', title: 'Inspector', needsDump: true, usesSelection: true },
  { id: 'path', title: 'Path to GC roots', needsDump: true, usesSelection: true },
  { id: 'merge', title: 'Merge paths', needsDump: true, usesSelection: true },
  { id: 'compare', title: 'Compare' },
];
