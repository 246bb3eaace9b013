/** Pool worker entry for browsers (a module Web Worker). */
import { serve } from './core.js';

const scope = globalThis as unknown as { postMessage(m: unknown, t?: Transferable[]): void; onmessage: ((e: MessageEvent) => void) | null };
serve({ post: (m, t) => scope.postMessage(m, t ?? []), onMessage: (f) => void (scope.onmessage = (e) => f(e.data)) });
