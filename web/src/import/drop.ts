// Getting a file from the user: drag and drop anywhere on the page, or the file picker.

export interface FileInputs {
  /** The <input type=file> behind the "Choose a heap dump" button. */
  picker: HTMLInputElement;
  /** The element highlighted while a file is dragged over the page. */
  zone: HTMLElement;
  /** The files chosen together (a dump, and maybe its mapping.txt). */
  onFiles(files: File[]): void;
  /** The files dropped together (the page may ask before replacing what is open). */
  onDrop(files: File[]): void;
}

export function wireFileInputs({ picker, zone, onFiles, onDrop }: FileInputs): void {
  picker.addEventListener('change', () => {
    const files = Array.from(picker.files ?? []);
    // Reset so choosing the same file again (after a cancel or error) fires 'change'.
    picker.value = '';
    if (files.length > 0) onFiles(files);
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
    const files = Array.from(e.dataTransfer?.files ?? []);
    if (files.length > 0) onDrop(files);
  });
}
