/** Pool worker entry for browsers (a module Web Worker). */
import { serve } from './core.js';

// A worker's global scope posts without a target origin (the DOM lib types `globalThis` as a window).
const scope = globalThis as typeof globalThis & { postMessage(m: unknown, t?: Transferable[]): void };
serve({ post: (m, t) => scope.postMessage(m, t ?? []), onMessage: (f) => void (scope.onmessage = (e) => f(e.data)) });
