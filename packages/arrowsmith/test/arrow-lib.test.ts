import * as entry from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import * as lib from '../src/arrow/lib.js';
import { decodeMsgpack } from '../src/node.js';

describe('arrow-lib (Arrow JS imported from its own modules)', () => {
  it('exports the very objects the apache-arrow entry exports', () => {
    const ours = Object.entries(lib);
    const theirs = new Map<string, unknown>(Object.entries(entry));
    expect(ours.length).toBeGreaterThan(20);
    for (const [name, value] of ours) expect(value, name).toBe(theirs.get(name));
  });

  it('tables are instances of the Table a user imports from apache-arrow', () => {
    // [1, 2, 3] as MessagePack: a fixarray of three fixints.
    const table = decodeMsgpack(new Uint8Array([0x93, 1, 2, 3]));
    expect(table).toBeInstanceOf(entry.Table);
    expect(table.getChildAt(0)).toBeInstanceOf(entry.Vector);
    expect([...table.getChildAt(0)!]).toEqual([1, 2, 3]);
  });
});
