/** vitest wrappers over the comparison helpers in compare.ts. */
import type { Table } from 'apache-arrow';
import { expect } from 'vitest';
import { tableMismatches } from './compare.js';

export { reference, referenceMulti, rng, valueAt } from './compare.js';

/** Compare a decoded table with the reference decoder's rows, value by value. */
export function expectTableMatches(table: Table, rows: unknown[]): void {
  expect(tableMismatches(table, rows)).toEqual([]);
}
