/** Node: paths and `file:` URLs as inputs (opened as FileHandles, read by positioned reads). */
import { readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { fileSystem } from './source.js';

/** Called by the Node entry and the Node pool worker. */
export function useNodeFiles(): void {
  fileSystem.open = (path) => open(/^file:/i.test(path) ? new URL(path) : path, 'r');
  fileSystem.readSync = (fd, dst, position) => readSync(fd, dst, 0, dst.length, position);
  fileSystem.plainBlobReads = true;
}
