/** Node: paths and `file:` URLs as inputs (opened as FileHandles and read by ranges). */
import { open } from 'node:fs/promises';
import { fileSystem } from './source.js';

/** Called by the Node entry and the Node pool worker. */
export function useNodeFiles(): void {
  fileSystem.open = (path) => open(/^file:/i.test(path) ? new URL(path) : path, 'r');
}
