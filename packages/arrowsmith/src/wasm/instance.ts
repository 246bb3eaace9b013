/**
 * Loading the wasm modules: one per format (MessagePack, TsFile, HDF5), each in two builds
 * (SIMD128 and scalar), each with its own memory, loaded on the first use of its format.
 * SIMD is used when the engine validates it AND the module's correctness check agrees
 * (some engines report SIMD but compute wrong results).
 *
 * Memory given back: wasm memory never shrinks, so after a read grew a module's memory
 * past `recycleBytes`, the next call of that format gets a fresh instance of the already
 * compiled module, and the old one is garbage once nothing uses it (open files move to the
 * fresh instance at their next operation, see file/reader.ts).
 */
import { compileModule, type WasmSource } from './compile.js';
import { checks } from './probe.js';
import { create as createHdf5, type Glue as Hdf5Glue } from '../../wasm/arrowsmith_hdf5.js';
import { create as createMsgpack, type Glue as MsgpackGlue } from '../../wasm/arrowsmith_msgpack.js';
import { create as createTsFile, type Glue as TsFileGlue } from '../../wasm/arrowsmith_tsfile.js';

/** The formats, one wasm module each. */
export type Format = 'msgpack' | 'tsfile' | 'hdf5';
/** @internal */
export const FORMATS: readonly Format[] = ['msgpack', 'tsfile', 'hdf5'];
/** The two builds of every module. */
export type Build = 'simd' | 'scalar';

export type { CompiledWasm, WasmSource } from './compile.js';

export interface InitOptions {
  /** Force the SIMD (`true`) or scalar (`false`) builds. Default: detect. */
  simd?: boolean;
  /**
   * The formats to load now. Default `['msgpack']`: the synchronous `decodeMsgpack` then
   * works at once; TsFile and HDF5 load on the first `openTsFile`/`openHdf5` anyway.
   */
  formats?: Format[];
  /** A folder (URL) holding the package's `arrowsmith_<format>_<build>.wasm` files (a CDN, your own host). */
  baseUrl?: string | URL;
  /**
   * Where each module comes from, asked once per format with the build that was chosen:
   * return the bytes, a URL, a Response or a compiled module (used as-is, whichever build
   * it is), or `undefined` for the package's own file.
   */
  source?: (format: Format, build: Build) => WasmSource | undefined | Promise<WasmSource | undefined>;
  /**
   * A module instance of the calling thread whose wasm memory grew past this many bytes
   * is replaced by a fresh one at the next call of its format, so memory goes back to its
   * baseline after a big read. Default 256 MiB. `Infinity` keeps instances for good.
   */
  recycleBytes?: number;
  /**
   * Read a small built-in input of each format loaded here a few times in idle time, so
   * the engine has optimized code for the decoder's hot paths before the first real read
   * (a page that inits at load and reads when the user drops a file). Default false. Every
   * format has one (a few KB to 18 KB in its module); `warmed` resolves with the reads made.
   */
  warm?: boolean;
}

/** @internal */
export const DEFAULT_RECYCLE_BYTES = 256 * 1024 * 1024;

/** The two ends of a worker, whatever the platform calls them. @internal */
export interface WorkerPort {
  post(message: unknown, transfer?: unknown[]): void;
  onMessage(f: (message: unknown) => void): void;
  /** A crash or exit of the worker. */
  onFailure(f: (error: Error) => void): void;
  /** Node: whether the worker keeps the process alive (only while it has work). */
  keepAlive?(on: boolean): void;
  terminate(): void;
}

/** How this platform finds the package's files (set by the entry: index.ts or node.ts). @internal */
export interface Platform {
  /** The package's own .wasm of a format and build (a URL in browsers, bytes in Node). */
  defaults?: (format: Format, build: Build, baseUrl?: string | URL) => WasmSource | Promise<WasmSource>;
  /** Node: the same, synchronously, so that every module loads itself on first use (undefined: not on disk). */
  bytesSync?: (format: Format, build: Build, baseUrl?: string | URL) => Uint8Array | undefined;
  /** Node: ARROWSMITH_SIMD=0/1 forces the build. */
  envSimd?: boolean;
  /** Node: read `file:` URLs from disk (Node's fetch cannot). */
  resolve?: (source: WasmSource) => WasmSource | Promise<WasmSource>;
  /** Start a pool worker running the given script (Node: worker_threads; default: Web Worker). */
  startWorker?: (url: URL) => WorkerPort;
  /** The pool worker script for this platform. */
  workerUrl?: URL;
  /** Logical cores (Node; browsers have navigator.hardwareConcurrency). */
  cores?: () => number;
  /**
   * Node: `n` JS-owned bytes without the zero fill every JS allocation does first (the caller
   * overwrites what it uses), saving a pass over each output buffer copied out of wasm.
   */
  allocBytes?: (n: number) => Uint8Array;
}

/** @internal */
export const platform: Platform = {};

/** A JS-owned copy of bytes in wasm memory, in its own 8-byte aligned ArrayBuffer. @internal */
export function ownedCopy(src: Uint8Array): Uint8Array {
  if (!platform.allocBytes) return src.slice();
  const b = platform.allocBytes(src.length);
  b.set(src);
  return b;
}

/** `n` JS-owned bytes in their own ArrayBuffer, contents unspecified (Node) or zero. @internal */
export function ownedBytes(n: number): Uint8Array {
  return platform.allocBytes ? platform.allocBytes(n) : new Uint8Array(n);
}

/** Each format's glue (what wasm-bindgen generates, patched into a factory by build-wasm.mjs). @internal */
export interface Glues {
  msgpack: MsgpackGlue;
  tsfile: TsFileGlue;
  hdf5: Hdf5Glue;
}
const CREATE: { [F in Format]: () => Glues[F] } = { msgpack: createMsgpack, tsfile: createTsFile, hdf5: createHdf5 };

/** One instance of a format's module. @internal */
export interface Loaded<F extends Format = Format> {
  readonly format: F;
  readonly glue: Glues[F];
  readonly memory: WebAssembly.Memory;
  readonly simd: boolean;
  /** The compiled module this is an instance of (and its current instance). */
  readonly owner: WasmModule<F>;
}

/**
 * A format's compiled module and its current instance on this thread. Compiled once;
 * instantiated again (cheap: the compiled code is shared) when the memory of the current
 * instance grew past `recycleBytes`. @internal
 */
export class WasmModule<F extends Format = Format> {
  #current?: Loaded<F>;
  /** Instances replaced so far. */
  replaced = 0;

  constructor(
    readonly format: F,
    readonly module: WebAssembly.Module,
    readonly simd: boolean,
    public recycleBytes = Infinity,
    first?: { glue: Glues[F]; memory: WebAssembly.Memory },
  ) {
    if (first) this.#current = { format, ...first, simd, owner: this };
  }

  /** The instance for the next call: a fresh one when the current one grew past `recycleBytes`. */
  instance(): Loaded<F> {
    const c = this.#current;
    if (c && c.memory.buffer.byteLength <= this.recycleBytes) return c;
    if (c) this.replaced++;
    const glue = CREATE[this.format]();
    const out = glue.initSync({ module: this.module });
    return (this.#current = { format: this.format, glue, memory: out.memory, simd: this.simd, owner: this });
  }

  /** Bytes of wasm memory the current instance holds (0 before its first use). */
  memoryBytes(): number {
    return this.#current?.memory.buffer.byteLength ?? 0;
  }
}

/** A minimal module using one v128 instruction: validates only where SIMD128 exists. */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function simdSupported(): boolean {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// ---- the calling thread's modules ----

interface Settings {
  simd?: boolean;
  baseUrl?: string | URL;
  source?: InitOptions['source'];
  recycleBytes: number;
}
const settings: Settings = { recycleBytes: DEFAULT_RECYCLE_BYTES };
const modules = new Map<Format, WasmModule>();
const loading = new Map<Format, Promise<WasmModule>>();
/** A SIMD module failed its correctness check here: every later module loads scalar. */
let simdBroken = false;

/** Apply `init()` options to the modules loaded from now on (and `recycleBytes` to all). @internal */
export function configure(opts: InitOptions): void {
  if (opts.simd !== undefined) settings.simd = opts.simd;
  if (opts.baseUrl !== undefined) settings.baseUrl = opts.baseUrl;
  if (opts.source !== undefined) settings.source = opts.source;
  if (opts.recycleBytes !== undefined) {
    if (!(opts.recycleBytes > 0)) throw new RangeError('arrowsmith: recycleBytes must be a positive number of bytes');
    settings.recycleBytes = opts.recycleBytes;
    for (const m of modules.values()) m.recycleBytes = opts.recycleBytes;
  }
}

function forcedSimd(): boolean | undefined {
  return settings.simd ?? platform.envSimd;
}

/** The build the next module load picks. @internal */
export function chooseBuild(): Build {
  return (forcedSimd() ?? true) && !simdBroken && simdSupported() ? 'simd' : 'scalar';
}

/** Load a format's module (once; concurrent callers share the load). @internal */
export function load<F extends Format>(format: F): Promise<WasmModule<F>> {
  const have = modules.get(format);
  if (have) return Promise.resolve(have as WasmModule<F>);
  let p = loading.get(format);
  if (!p) {
    p = loadAsync(format).finally(() => loading.delete(format));
    loading.set(format, p);
  }
  return p as Promise<WasmModule<F>>;
}

async function loadAsync(format: Format): Promise<WasmModule> {
  for (;;) {
    const build = chooseBuild();
    const custom = await settings.source?.(format, build);
    let src: WasmSource;
    if (custom !== undefined) src = (await platform.resolve?.(custom)) ?? custom;
    else if (platform.defaults) src = await platform.defaults(format, build, settings.baseUrl);
    else throw new Error('arrowsmith: no wasm location is known here; import the package entry (arrowsmith) or pass init({ source })');
    const compiled = await compileModule(src, `the ${format} module (${build})`);
    const m = accept(format, compiled, custom !== undefined ? undefined : build);
    if (m) return m;
  }
}

/**
 * Instantiate and check a freshly compiled module; register it. Undefined when a SIMD
 * module failed its correctness check (the caller then loads the scalar build).
 */
function accept(format: Format, module: WebAssembly.Module, build: Build | undefined): WasmModule | undefined {
  const existing = modules.get(format);
  if (existing) return existing;
  // The build a custom source really is: asked of the module itself.
  const glue = CREATE[format]();
  const { memory } = glue.initSync({ module });
  const simd = build ? build === 'simd' : glue.simdEnabled();
  if (simd && forcedSimd() !== true && build && !checks(format, glue, memory)) {
    simdBroken = true;
    return undefined;
  }
  // The checked instance is the first one used.
  const m = new WasmModule(format, module, simd, settings.recycleBytes, { glue, memory });
  modules.set(format, m);
  return m;
}

/** Node (or a module compiled already): load synchronously. Undefined where that is impossible. */
function loadSync(format: Format): WasmModule | undefined {
  const have = modules.get(format);
  if (have) return have;
  const read = platform.bytesSync;
  if (!read || settings.source) return undefined;
  for (;;) {
    const build = chooseBuild();
    const bytes = read(format, build, settings.baseUrl);
    if (!bytes) return undefined;
    const m = accept(format, new WebAssembly.Module(bytes as BufferSource), build);
    if (m) return m;
  }
}

/**
 * The current instance of a format's module on this thread, for a call about to start
 * (a fresh one when the memory of the last grew past the limit). Loads it synchronously
 * in Node; elsewhere it must have been loaded (`init()`, or the async open of a file).
 * @internal
 */
export function instance<F extends Format>(format: F): Loaded<F> {
  const m = (modules.get(format) ?? loadSync(format)) as WasmModule<F> | undefined;
  if (!m) {
    throw new Error(
      format === 'msgpack'
        ? 'arrowsmith: call `await init()` before decodeMsgpack (it loads the MessagePack module; Node loads it on first use)'
        : `arrowsmith: the ${format} module is not loaded; call \`await init({ formats: ['${format}'] })\` first`,
    );
  }
  return m.instance();
}

/** The same, loading the module first where needed (the async entry points). @internal */
export async function instanceAsync<F extends Format>(format: F): Promise<Loaded<F>> {
  return (modules.get(format) ? undefined : await load(format), instance(format));
}

/** The loaded module of a format on this thread, if any. @internal */
export function loaded<F extends Format>(format: F): WasmModule<F> | undefined {
  return modules.get(format) as WasmModule<F> | undefined;
}

/** Whether SIMD builds are (or will be) used on this thread. @internal */
export function simdChosen(): boolean {
  const any = modules.values().next().value as WasmModule | undefined;
  return any ? any.simd : instance('msgpack').simd;
}

/**
 * Pool workers: a module the main thread compiled, registered for its format (never
 * replaced here: the pool replaces a whole worker whose memory grew).
 * @internal
 */
export function adopt(format: Format, module: WebAssembly.Module, simd: boolean): void {
  if (!modules.has(format)) modules.set(format, new WasmModule(format, module, simd));
}

/** A module instance of its own, outside the thread's registry (benchmarks, tests). @internal */
export function standalone<F extends Format>(format: F, module: WebAssembly.Module, simd: boolean): Loaded<F> {
  return new WasmModule(format, module, simd).instance();
}

/** Bytes of wasm memory each format's current instance holds on this thread (0: not loaded). */
export function memory(): Record<Format, number> {
  return { msgpack: loaded('msgpack')?.memoryBytes() ?? 0, tsfile: loaded('tsfile')?.memoryBytes() ?? 0, hdf5: loaded('hdf5')?.memoryBytes() ?? 0 };
}
