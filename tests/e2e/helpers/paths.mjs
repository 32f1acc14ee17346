import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The shared test corpus, beside the repository (read-only). */
export const CORPUS = path.resolve(REPO, '..', 'shared', 'corpus');

/** A reason to skip corpus tests, or false when the corpus is there. */
export const CORPUS_MISSING = fs.existsSync(path.join(CORPUS, 'dumps'))
  ? false
  : `the test corpus is not at ${CORPUS} (expected ../shared/corpus beside the repository): corpus tests skipped`;
