/// <reference lib="esnext.disposable" preserve="true" />
// (The published types declare Symbol.dispose members: this brings their lib along, so
// consumers need neither `esnext.disposable` in `lib` nor @types/node; TypeScript >= 5.2.)
import type { HttpOptions } from '../io/http.js';
import type { Pool } from '../pool/pool.js';

/**
 * Options of `openTsFile` / `openHdf5`: `pool` to read on a worker pool (each read becomes
 * parallel jobs); `signal` cancels the open; for a URL also how it is fetched.
 */
export interface OpenOptions extends HttpOptions {
  pool?: Pool;
  /** Every read's default `maxReadBytes` (see `FileReadOptions`). Default 1 GiB. */
  maxReadBytes?: number;
}

/**
 * A file of any format as users hold it: `close()` and `Symbol.dispose` /
 * `Symbol.asyncDispose`. Not generic; each format's class keeps its own `FileCore`
 * (`core.ts`), which does the work.
 */
export class FileReaderBase {
  readonly #core: { close(): Promise<void> };

  /** @internal */
  protected constructor(core: { close(): Promise<void> }) {
    this.#core = core;
  }

  /**
   * Release the file: the wasm-side reader, the pool workers' copies, the file descriptor
   * of a path it opened. Using the file afterwards throws. Also `using` / `await using`.
   */
  close(): Promise<void> {
    return this.#core.close();
  }

  [Symbol.dispose](): void {
    void this.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
