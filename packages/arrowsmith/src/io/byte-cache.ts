/**
 * Fetched ranges kept for re-use, bounded in bytes; the least recently used go first.
 * A read is served when one kept range covers it (reads repeat the same planned ranges).
 */
export class ByteCache {
  #segments: { start: number; bytes: Uint8Array }[] = [];
  #total = 0;
  constructor(readonly limit: number) {}

  get(offset: number, length: number): Uint8Array | undefined {
    const end = offset + length;
    const parts = this.#segments.filter((s) => s.start < end && s.start + s.bytes.length > offset).sort((a, b) => a.start - b.start);
    // Covered without a gap?
    let at = offset;
    for (const s of parts) if (s.start <= at) at = Math.max(at, s.start + s.bytes.length);
    if (at < end) return undefined;
    for (const s of parts) this.#segments.push(...this.#segments.splice(this.#segments.indexOf(s), 1));
    const one = parts.find((s) => s.start <= offset && end <= s.start + s.bytes.length);
    if (one) return one.bytes.subarray(offset - one.start, end - one.start);
    const out = new Uint8Array(length);
    for (const s of parts) {
      const a = Math.max(offset, s.start);
      const b = Math.min(end, s.start + s.bytes.length);
      out.set(s.bytes.subarray(a - s.start, b - s.start), a - offset);
    }
    return out;
  }

  put(start: number, bytes: Uint8Array): void {
    if (bytes.length > this.limit) return;
    this.#segments.push({ start, bytes });
    this.#total += bytes.length;
    while (this.#total > this.limit) this.#total -= this.#segments.shift()!.bytes.length;
  }
}
