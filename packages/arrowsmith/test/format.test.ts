// The CLI's cell text: timestamps in ISO 8601 at the precision of their unit, dates as days.
import { describe, expect, it } from 'vitest';
import { isoDate, isoTime } from '../src/cli/format.js';

describe('ISO times and dates', () => {
  it('keeps every digit of the unit, before and after 1970', () => {
    const ms = 1_700_000_000_123;
    expect(isoTime(BigInt(ms), 3)).toBe(new Date(ms).toISOString());
    expect(isoTime(BigInt(ms) * 1_000_000n + 456_789n, 9)).toBe(new Date(ms).toISOString().replace('Z', '456789Z'));
    expect(isoTime(BigInt(ms) * 1000n + 7n, 6)).toBe(new Date(ms).toISOString().replace('Z', '007Z'));
    expect(isoTime(1_700_000_000n, 0)).toBe(new Date(1_700_000_000_000).toISOString().replace('.000Z', 'Z'));
    expect(isoTime(-1n, 3)).toBe(new Date(-1).toISOString());
    expect(isoTime(-1n, 9)).toBe('1969-12-31T23:59:59.999999999Z');
    expect(isoDate(19_675)).toBe(new Date(Date.UTC(2023, 10, 14)).toISOString().slice(0, 10));
    expect(isoDate(-1)).toBe('1969-12-31');
  });
});
