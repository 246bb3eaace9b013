/**
 * What a file's wasm reader holds of its bytes: ranges supplied since its cache was last
 * cleared, of which the small ones (metadata) are kept and supplied again after each clear.
 */
import type { Source } from '../io/source.js';
import { coalesce, COALESCE_GAP, concurrently, readAll } from './fetch.js';
import { supplyRange, type SupplyTarget } from './supply.js';

/**
 * Ranges a read asked for one at a time up to this size are metadata (headers, indexes):
 * they are kept across reads, up to KEEP_BYTES in all, so a sequence of reads (batches)
 * does not walk them again one round trip at a time. Larger ranges (data) are dropped
 * after the read that fetched them.
 */
export const KEEP_RANGE = 64 * 1024;
const KEEP_BYTES = 1024 * 1024;

/** What a wasm reader's cache takes. */
export interface CacheTarget extends SupplyTarget {
  clearCache(): void;
}

export class SuppliedRanges {
  /** Ranges supplied since the cache was last cleared. */
  #loaded: [number, number][] = [];
  /** Ranges kept supplied across reads (a TsFile's footer and index), with their bytes. */
  #kept: [number, Uint8Array][] = [];
  #keptBytes = 0;
  /** Ranges were supplied since the last release (the cache holds more than the kept ranges). */
  #dirty = false;

  constructor(
    readonly reader: Source,
    readonly format: string,
  ) {}

  /** Hand bytes a read asked for to the wasm reader; a small range (metadata) is also kept. */
  supply(target: SupplyTarget, offset: number, bytes: Uint8Array): void {
    target.supply(offset, bytes);
    if (bytes.length <= KEEP_RANGE && this.#keptBytes + bytes.length <= KEEP_BYTES) {
      this.#keptBytes += bytes.length;
      this.#kept.push([offset, bytes.slice()]); // a copy: the bytes may be a reused buffer
      this.#loaded.push([offset, offset + bytes.length]);
    } else {
      this.#dirty = true;
    }
  }

  /** Fetch the planned ranges (flat [start, end, ...]) ahead of a read, those not supplied yet. */
  async prefetch(target: SupplyTarget, flat: Float64Array | number[], signal?: AbortSignal): Promise<void> {
    if (flat.length === 0) return;
    const ranges: [number, number][] = [];
    for (let i = 0; i < flat.length; i += 2) ranges.push(...this.#missing(flat[i]!, flat[i + 1]!));
    const merged = coalesce(ranges, COALESCE_GAP);
    await concurrently(merged.length, async (k) => {
      const [a, b] = merged[k]!;
      await supplyRange(this.reader, target, this.format, a, b - a, signal);
      this.#dirty = true;
      this.#loaded.push([a, b]);
    });
  }

  /**
   * Fetch and supply ranges (flat [start, end, ...]; overlaps merged) that every read needs,
   * and supply them again whenever the cache is cleared: otherwise each read would ask for
   * them again, one missing range (one failed call) at a time.
   */
  async keep(target: SupplyTarget, flat: number[], signal?: AbortSignal): Promise<void> {
    const ranges: [number, number][] = [];
    for (let i = 0; i < flat.length; i += 2) if (flat[i + 1]! > flat[i]!) ranges.push([flat[i]!, flat[i + 1]!]);
    for (const [s, e] of coalesce(ranges, 0)) {
      const bytes = await readAll(this.reader, this.format, s, e - s, signal);
      target.supply(s, bytes);
      this.#kept.push([s, bytes]);
      this.#loaded.push([s, e]);
    }
  }

  /** After a read that fetched ranges: clear the cache (but the kept ranges) so memory stays bounded. */
  release(target: CacheTarget): void {
    if (!this.#dirty) return;
    target.clearCache();
    this.supplyKept(target);
    this.#loaded = this.#kept.map(([s, b]) => [s, s + b.length]);
    this.#dirty = false;
  }

  /** Supply the kept ranges to a fresh reader of the file (on another module instance). */
  supplyKept(target: SupplyTarget): void {
    for (const [s, bytes] of this.#kept) target.supply(s, bytes);
  }

  /** The file now reads with that fresh reader: it holds the kept ranges only. */
  moved(): void {
    this.#loaded = this.#kept.map(([s, b]) => [s, s + b.length]);
    this.#dirty = true; // the old reader's cache is gone with it; clear the new one's at the next release
  }

  /** Bytes supplied since the cache was last cleared (kept ranges included). */
  get bytes(): number {
    return this.#loaded.reduce((n, [a, b]) => n + (b - a), 0);
  }

  /** The parts of [start, end) not supplied yet. */
  #missing(start: number, end: number): [number, number][] {
    let parts: [number, number][] = [[start, end]];
    for (const [a, b] of this.#loaded) {
      parts = parts.flatMap(([s, e]): [number, number][] =>
        b <= s || a >= e ? [[s, e]] : [...(s < a ? [[s, a] as [number, number]] : []), ...(b < e ? [[b, e] as [number, number]] : [])],
      );
    }
    return parts;
  }
}
