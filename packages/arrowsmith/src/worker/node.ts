/** Pool worker entry for Node (worker_threads). */
import { parentPort } from 'node:worker_threads';
import { serve } from './core.js';
import { useNodeFiles } from '../io/node-files.js';
import { useNodeMemory } from '../wasm/node-memory.js';

useNodeFiles();
// Batches go back in buffers that are not zeroed before the copy into them.
useNodeMemory();
const port = parentPort!;
serve({ post: (m, t) => port.postMessage(m, t as never), onMessage: (f) => void port.on('message', f) });
