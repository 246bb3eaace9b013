/**
 * Arrowsmith: binary scientific and telemetry formats decoded by a Rust/wasm core straight
 * into Apache Arrow JS tables.
 *
 * ```ts
 * import { init, decodeMsgpack } from 'arrowsmith';
 * await init();                      // browsers; optional in Node
 * const table = decodeMsgpack(bytes); // an apache-arrow Table
 * ```
 */
import { current, load, normalizeInit, type InitOptions, type WasmSource } from './wasm.js';

export { DecodeError, type DecodeErrorCode } from './errors.js';
export { decodeMsgpack, decodeMsgpackStream, type MsgpackOptions, type MsgpackPoolOptions, type MsgpackStreamOptions, type ChunkSource } from './msgpack.js';
export { createPool, Pool, type PoolOptions } from './pool/pool.js';
export { simdSupported, type InitOptions, type WasmSource } from './wasm.js';
export type { TimeValue, TsFileQuery } from './types.js';
export { openTsFile, TsFile, type TsFileOptions, type TsFileTable, type TsFileColumn, type TsFileDevice, type TsFileSeries } from './tsfile.js';
export { openHdf5, Hdf5File, type Hdf5Entry, type Hdf5DatasetInfo, type Hdf5ReadOptions, type Hdf5Options } from './hdf5.js';
export type { FileSource, RangeReader } from './source.js';
export { HttpError, type HttpOptions } from './http.js';

/**
 * Load the wasm module. With no argument the package's own files are used and the SIMD
 * build is chosen when the engine supports it and passes a correctness probe.
 * Accepts bytes, a URL, a Response, or `{ simd?, source?, baseUrl? }`.
 */
export async function init(arg?: WasmSource | InitOptions): Promise<{ simd: boolean }> {
  const l = await load(normalizeInit(arg));
  return { simd: l.simd };
}

/** Which build is running: true for SIMD128. Loads the module first in Node. */
export function simdActive(): boolean {
  return current().simd;
}
