// Asking before a control or a dropped file replaces the loaded analysis: an inline
// confirmation under the toolbar (a native confirm() would block the page and cannot be
// styled or tested), with the replacing action on its first button.
import { byId, h, replaceChildren } from '../lib/dom';

/** Runs `action` at once when nothing is loaded, else after the user confirms. */
export function confirmReplace(what: string, action: () => void): void {
  if (byId('main').dataset.mode !== 'done') {
    action();
    return;
  }
  const box = byId('replace-confirm');
  const title = byId('dump-title').textContent ?? 'this dump';
  const yes = h('button', { type: 'button', id: 'replace-yes' }, what);
  const no = h('button', { type: 'button', id: 'replace-no', class: 'secondary' }, 'Keep the current analysis');
  const close = (): void => {
    box.hidden = true;
    replaceChildren(box);
  };
  yes.addEventListener('click', () => {
    close();
    action();
  });
  no.addEventListener('click', close);
  box.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') close();
  });
  replaceChildren(box, h('span', { id: 'replace-question' }, `This replaces the analysis of ${title}. `), yes, ' ', no);
  box.hidden = false;
  yes.focus();
}
