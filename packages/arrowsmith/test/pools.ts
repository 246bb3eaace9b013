/**
 * The ways a file is read in the fixture tests: on the calling thread, and on a worker
 * pool with shared-memory output and with transferred batches. Every fixture test runs
 * in each mode against the same independent expectations.
 */
import { afterAll, beforeAll } from 'vitest';
import { createPool, type Pool } from '../src/node.js';

const pools: { shared?: Pool; transfer?: Pool } = {};
/** Tests run the TypeScript sources; workers run the built package (scripts/test.sh builds it first). */
export const workerUrl = new URL('../dist/worker/node.js', import.meta.url);

/** Start the pools for this test file (and close them after it). */
export function usePools(): void {
  beforeAll(async () => {
    pools.shared = await createPool({ size: 2, workerUrl, minJobBytes: 0, sharedMemory: true });
    pools.transfer = await createPool({ size: 2, sharedMemory: false, workerUrl, minJobBytes: 0 });
  });
  afterAll(() => {
    pools.shared?.close();
    pools.transfer?.close();
  });
}

export const MODES: { mode: string; options: () => { pool?: Pool } }[] = [
  { mode: 'one thread', options: () => ({}) },
  { mode: 'pool, shared memory', options: () => ({ pool: pools.shared! }) },
  { mode: 'pool, transferred batches', options: () => ({ pool: pools.transfer! }) },
];
