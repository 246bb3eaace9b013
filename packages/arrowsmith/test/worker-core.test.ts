// Where a pool worker writes a batch into lent shared memory (batches({ lend: true })).
import { describe, expect, it } from 'vitest';
import { lendPlaces } from '../src/worker/core.js';

describe('lendPlaces', () => {
  it('puts buffers one after another, each at its source alignment mod 8, without overlap', () => {
    // [ptr, len] pairs as wasm describes a batch: 8-aligned values, 4-aligned offsets, bytes anywhere.
    const ptrs = Uint32Array.from([1024, 40, 2052, 21, 3001, 7, 4096, 0, 5123, 13]);
    const at = lendPlaces(ptrs, 1 << 16)!;
    expect(at).toHaveLength(5);
    let end = 0;
    at.forEach((a, i) => {
      expect(a % 8, `buffer ${i}`).toBe(ptrs[2 * i]! % 8);
      expect(a, `buffer ${i}`).toBeGreaterThanOrEqual(end);
      expect(a - end, `buffer ${i}`).toBeLessThan(8);
      end = a + ptrs[2 * i + 1]!;
    });
    // Exactly the room they need fits; a byte less does not.
    expect(lendPlaces(ptrs, end)).toEqual(at);
    expect(lendPlaces(ptrs, end - 1)).toBeUndefined();
  });

  it('places nothing for a batch of no buffers', () => {
    expect(lendPlaces(new Uint32Array(0), 0)).toEqual([]);
  });
});
