/** Pool worker entry for Node (worker_threads). */
import { parentPort } from 'node:worker_threads';
import { serve } from './core.js';
import { useNodeFiles } from '../io/node-files.js';

useNodeFiles();
const port = parentPort!;
serve({ post: (m, t) => port.postMessage(m, t as never), onMessage: (f) => void port.on('message', f) });
