/** Shared memory a pool's `batches()` lends its batches in. */
import type { Decoded } from './protocol.js';

/**
 * The shared memory a `batches()` call lends its batches in: pieces as large as the largest
 * batch so far needs (its buffers and their alignment, a sixteenth more), at most `most` of
 * them, each given to one job at a time and taken back once the consumer moved past its
 * batch; none before a first batch came back (the worker then sends its buffers, as it does
 * when a batch outgrows its piece). Pieces come from the pool's `spare` ones when large
 * enough, and those no job or consumer may still touch go back there when the call ends
 * (one a job was writing when the consumer stopped, or the consumer's last batch, is dropped).
 */
export class LentMemory {
  #size = 0;
  #made = 0;
  readonly #free: SharedArrayBuffer[] = [];
  constructor(
    readonly most: number,
    readonly spare: SharedArrayBuffer[],
  ) {}

  /** A piece for the next job, or undefined (no size yet, or all pieces in use). */
  take(): SharedArrayBuffer | undefined {
    if (this.#size === 0) return undefined;
    while (this.#free.length) {
      const m = this.#free.pop()!;
      if (m.byteLength >= this.#size) return m;
      this.#made--; // too small since: dropped
    }
    if (this.#made >= this.most) return undefined;
    this.#made++;
    const i = this.spare.findIndex((m) => m.byteLength >= this.#size);
    return i >= 0 ? this.spare.splice(i, 1)[0]! : new SharedArrayBuffer(this.#size);
  }

  /** The call ended: its free pieces go back to the pool (the largest kept, up to `most`). */
  done(): void {
    this.spare.push(...this.#free.splice(0));
    this.spare.sort((a, b) => b.byteLength - a.byteLength).splice(this.most);
  }

  /** A batch came back: the size pieces need from now on. */
  saw(r: Decoded): void {
    const need = r.lens.reduce((n, len) => n + len + 7, 0);
    if (need > this.#size) this.#size = Math.ceil((need + need / 16) / 65536) * 65536;
  }

  give(m: SharedArrayBuffer): void {
    this.#free.push(m);
  }
}
