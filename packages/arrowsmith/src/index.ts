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
import { isResponse } from './io/source.js';
import { wasmFile } from './wasm/files.js';
import { chooseBuild, configure, FORMATS, load, platform, simdChosen, type Format, type InitOptions } from './wasm/instance.js';
import { warmUp } from './formats/warm.js';

export { DecodeError, type DecodeErrorCode } from './errors.js';
export { decodeMsgpack, decodeMsgpackAsync, decodeMsgpackStream, type MsgpackOptions, type MsgpackAsyncOptions, type MsgpackStreamOptions } from './formats/msgpack/decode.js';
export { createPool, Pool, type PoolOptions } from './pool/pool.js';
export type { PoolStats, WasmMemory } from './pool/protocol.js';
export { memory, simdSupported, type Build, type CompiledWasm, type Format, type InitOptions, type WasmSource } from './wasm/instance.js';
export type { FileReadOptions, Hdf5Select, ReadOptions, TimeValue, TsFileQuery } from './types.js';
export type { OpenOptions } from './file/reader.js';
export { openTsFile, TsFile, tsfileBatchRows, type TsFileBatchQuery, type TsFileOptions, type TsFileTable, type TsFileColumn, type TsFileDevice, type TsFileSeries } from './formats/tsfile/file.js';
export { openHdf5, Hdf5File, type Hdf5Entry, type Hdf5DatasetInfo, type Hdf5Description, type Hdf5Type, type Hdf5ReadOptions, type Hdf5BatchOptions, type Hdf5Options } from './formats/hdf5/file.js';
export type { ByteInput, BytesLike, ChunkSource, FileHandleLike, FileSource, RangeReader } from './io/source.js';
export { HttpError, type HttpOptions } from './io/http.js';

// Browsers and bundlers: the package's own files, next to this module (bundlers emit them).
platform.defaults ??= (format, build, baseUrl) => wasmFile(format, build, baseUrl);

/**
 * Load wasm modules. With no argument the MessagePack module is loaded (so that the
 * synchronous `decodeMsgpack` works right after); TsFile and HDF5 load on the first
 * `openTsFile`/`openHdf5`, or now with `{ formats }`. The SIMD builds are chosen when the
 * engine supports SIMD128 and each module's correctness check passes. Options given here
 * (`baseUrl`, `source`, `simd`, `recycleBytes`) also apply to the modules loaded later;
 * `warm` warms the formats loaded now in idle time (`warmed` resolves with the reads made).
 */
export async function init(options: InitOptions = {}): Promise<{ simd: boolean; warmed: Promise<number> }> {
  if (typeof options !== 'object' || options === null || options instanceof URL || ArrayBuffer.isView(options) || options instanceof ArrayBuffer || isResponse(options)) {
    throw new TypeError('arrowsmith: init() takes options, e.g. init({ baseUrl }) or init({ source: (format, build) => bytesOrUrl }); there is one module per format');
  }
  const formats = options.formats ?? ['msgpack'];
  for (const f of formats) if (!FORMATS.includes(f)) throw new TypeError(`arrowsmith: unknown format ${JSON.stringify(f)} (known: ${FORMATS.join(', ')})`);
  configure(options);
  const loaded = await Promise.all(formats.map((f: Format) => load(f)));
  const warmed = options.warm ? warmUp(formats) : Promise.resolve(0);
  return { simd: loaded.length > 0 ? loaded.every((m) => m.simd) : chooseBuild() === 'simd', warmed };
}

/** Whether the SIMD128 builds are in use (loads the MessagePack module first in Node when none is loaded). */
export function simdActive(): boolean {
  return simdChosen();
}
