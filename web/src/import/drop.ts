// Getting a file from the user: drag and drop anywhere on the page, or the file picker.

export interface FileInputs {
  /** The <input type=file> behind the "Choose a heap dump" button. */
  picker: HTMLInputElement;
  /** The element highlighted while a file is dragged over the page. */
  zone: HTMLElement;
  onFile(file: File): void;
}

export function wireFileInputs({ picker, zone, onFile }: FileInputs): void {
  picker.addEventListener('change', () => {
    const file = picker.files?.[0];
    // Reset so choosing the same file again (after a cancel or error) fires 'change'.
    picker.value = '';
    if (file) onFile(file);
  });

  let depth = 0;
  const hasFiles = (e: DragEvent): boolean => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  window.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    zone.classList.add('dragging');
  });
  window.addEventListener('dragleave', (e) => {
    if (!hasFiles(e)) return;
    depth = Math.max(0, depth - 1);
    if (depth === 0) zone.classList.remove('dragging');
  });
  window.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
  });
  window.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    zone.classList.remove('dragging');
    const file = e.dataTransfer?.files?.[0];
    if (file) onFile(file);
  });
}
