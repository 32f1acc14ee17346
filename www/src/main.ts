// heapscope's page: wires the file inputs, the worker client and the views together.
import { AnalysisClient, CANCELLED } from './import/worker-client';
import { wireFileInputs } from './import/drop';
import { fetchSample } from './import/sample';
import { byId, replaceChildren, setText } from './lib/dom';
import { StateStore } from './lib/state';
import { installTrustedTypesPolicy } from './lib/trusted-types';
import { isAnalysisError, type AnalysisError } from './protocol';
import { hideError, showError } from './views/error';
import { renderOverview } from './views/overview';
import { ProgressView } from './views/progress';
import { onTabClick, renderShell, setMode, setNotice, setVersion, showView } from './views/shell';

installTrustedTypesPolicy();
renderShell(byId('app'));

const store = new StateStore();
const client = new AnalysisClient();
client.onVersion(setVersion);
const progress = new ProgressView(() => client.cancel());

/** Increases with every file, so a superseded run's outcome is ignored. */
let runId = 0;

async function openFile(file: File): Promise<void> {
  const id = ++runId;
  hideError();
  setNotice(null);
  byId('results').hidden = true;
  setMode('running');
  progress.start(file.name, file.size);
  try {
    const { summary, seconds } = await client.open(file, {}, { onProgress: (p) => id === runId && progress.update(p) });
    if (id !== runId) return;
    progress.stop();
    setText(byId('dump-title'), file.name);
    replaceChildren(byId('view-overview').querySelector('.view-body') as HTMLElement, renderOverview({ name: file.name, summary, seconds }));
    byId('results').hidden = false;
    showView(store.get());
    setMode('done');
  } catch (e) {
    if (id !== runId) return;
    progress.stop();
    const error: AnalysisError = isAnalysisError(e) ? e : { kind: 'internal', offset: null, message: String(e), text: String(e) };
    if (error.kind === 'cancelled' && error === CANCELLED) {
      setNotice(`Cancelled reading ${file.name}. Ready for the next file.`);
      setMode('idle');
    } else {
      showError(error, file);
      setMode('error');
    }
  }
}

wireFileInputs({ picker: byId<HTMLInputElement>('file-input'), zone: byId('main'), onFile: (f) => void openFile(f) });
byId('choose-button').addEventListener('click', () => byId<HTMLInputElement>('file-input').click());

const sampleButton = byId<HTMLButtonElement>('sample-button');
sampleButton.addEventListener('click', async () => {
  sampleButton.disabled = true;
  try {
    await openFile(await fetchSample());
  } catch (e) {
    showError({ kind: 'io', offset: null, message: String(e), text: e instanceof Error ? e.message : String(e) }, null);
    setMode('error');
  } finally {
    sampleButton.disabled = false;
  }
});

onTabClick((view) => store.set({ view }));
store.subscribe(showView);
showView(store.get());
