/**
 * External storage (`H5Pset_external`): a dataset's raw data in other files, each given by
 * the resolver once per name and read by range (zeros past a file's end, as libhdf5 reads),
 * then decoded here.
 */
import { DecodeError } from '../../errors.js';
import { toRangeReader, type Source } from '../../io/source.js';
import type { WasmBatchHandle } from '../../types.js';
import { window, type Hdf5Core } from './core.js';
import type { Hdf5Options } from './types.js';

export class ExternalStorage {
  /** Files holding external storage, by the name the file stores. */
  #files = new Map<string, Promise<Source>>();

  constructor(readonly resolve: NonNullable<Hdf5Options['resolve']>) {}

  /** Rows `start..start+count` (or a selection) of `path`, its pieces read from their files. */
  async read(core: Hdf5Core, path: string, start: number, count: number | undefined, max: number | undefined, signal?: AbortSignal, select?: number[]): Promise<WasmBatchHandle> {
    const r = window(start, count, max, select);
    const json = await core.call(() => core.handle.externalRanges(path, r), signal);
    const pieces = JSON.parse(json) as { file: string; offset: number; length: number }[];
    const raw = new Uint8Array(pieces.reduce((a, p) => a + p.length, 0));
    let at = 0;
    for (const p of pieces) {
      const r = await this.#file(path, p.file);
      const n = Math.max(0, Math.min(p.length, r.size - p.offset));
      if (n > 0) raw.set(await r.read(p.offset, n, signal), at);
      at += p.length;
    }
    return core.call(() => core.handle.readExternal(path, r, raw), signal);
  }

  #file(path: string, name: string): Promise<Source> {
    let r = this.#files.get(name);
    if (!r) {
      r = (async () => {
        const source = await this.resolve(name);
        if (source === undefined || source === null) throw new DecodeError('HDF5', undefined, 'not-found', `${path}: external storage in ${name}, which the resolver does not have`);
        return toRangeReader(source, { who: 'openHdf5', format: 'HDF5' });
      })();
      this.#files.set(name, r);
      r.catch(() => this.#files.delete(name));
    }
    return r;
  }

  /** Close the files opened. */
  close(): Promise<unknown> {
    const files = [...this.#files.values()];
    this.#files.clear();
    return Promise.all(files.map((s) => s.then((r) => r.close?.(), () => undefined)));
  }
}
