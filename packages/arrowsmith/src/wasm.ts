/**
 * Loading the wasm module: two builds of the same crate (SIMD128 and scalar), chosen at
 * run time. SIMD is used when the engine validates it AND a correctness probe agrees with
 * known values (some engines report SIMD but compute wrong results).
 */
import * as simdGlue from '../wasm/arrowsmith_simd.js';
import * as scalarGlue from '../wasm/arrowsmith_scalar.js';

export type Glue = typeof simdGlue;

/** Anything wasm-bindgen's init accepts: bytes, a URL, a Response, a compiled module. */
export type WasmSource = BufferSource | URL | string | Response | Promise<Response> | WebAssembly.Module;

export interface InitOptions {
  /** Force the SIMD (`true`) or scalar (`false`) build. Default: detect. */
  simd?: boolean;
  /** The .wasm to load, used as-is (no SIMD/scalar choice). Default: the package's own files. */
  source?: WasmSource;
  /** A folder (URL) holding both `arrowsmith_simd.wasm` and `arrowsmith_scalar.wasm`. */
  baseUrl?: string | URL;
}

/** How this platform finds the package's .wasm files (set by the Node entry). */
export interface Platform {
  defaults: (variant: 'simd' | 'scalar', opts: InitOptions) => WasmSource | Promise<WasmSource>;
  /** Node: load synchronously on first use, so `init()` is optional there. */
  lazy?: () => Loaded;
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
   * Node: a JS-owned copy without the zero fill every JS allocation does first (the copy
   * overwrites every byte at once), saving a pass over each output buffer.
   */
  copyBytes?: (src: Uint8Array) => Uint8Array;
}

/** The two ends of a worker, whatever the platform calls them. */
export interface WorkerPort {
  post(message: unknown, transfer?: Transferable[]): void;
  onMessage(f: (message: unknown) => void): void;
  /** A crash or exit of the worker. */
  onFailure(f: (error: Error) => void): void;
  /** Node: whether the worker keeps the process alive (only while it has work). */
  keepAlive?(on: boolean): void;
  terminate(): void;
}

export const platform: Platform = {
  defaults: (variant, opts) => new URL(`arrowsmith_${variant}.wasm`, opts.baseUrl ?? new URL('../wasm/', import.meta.url)),
};

/** A JS-owned copy of bytes in wasm memory, in its own 8-byte aligned ArrayBuffer. */
export function ownedCopy(src: Uint8Array): Uint8Array {
  return platform.copyBytes ? platform.copyBytes(src) : src.slice();
}

export interface Loaded {
  glue: Glue;
  memory: WebAssembly.Memory;
  simd: boolean;
  /** The compiled module, kept so that a worker pool instantiates it without compiling again. */
  module: WebAssembly.Module;
}

let loaded: Loaded | undefined;
let loading: Promise<Loaded> | undefined;


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

function isOptions(x: unknown): x is InitOptions {
  return (
    typeof x === 'object' &&
    x !== null &&
    !(x instanceof URL) &&
    !ArrayBuffer.isView(x) &&
    !(x instanceof ArrayBuffer) &&
    !(typeof Response !== 'undefined' && x instanceof Response) &&
    !(x instanceof WebAssembly.Module) &&
    !(typeof (x as Promise<unknown>).then === 'function')
  );
}

export function normalizeInit(arg?: WasmSource | InitOptions): InitOptions {
  if (arg === undefined) return {};
  return isOptions(arg) ? arg : { source: arg };
}

/** Compile a wasm source (bytes, URL, Response) to a module, streaming where the server allows. */
export async function compileModule(src: WasmSource | Promise<Response>): Promise<WebAssembly.Module> {
  const s = await src;
  if (s instanceof WebAssembly.Module) return s;
  if (s instanceof ArrayBuffer || ArrayBuffer.isView(s)) return WebAssembly.compile(s as BufferSource);
  const res = typeof Response !== 'undefined' && s instanceof Response ? s : await fetch(s as string | URL);
  if (!res.ok) throw new Error(`arrowsmith: could not load the wasm module from ${res.url}: HTTP ${res.status}`);
  if (typeof WebAssembly.compileStreaming === 'function' && res.headers.get('content-type')?.startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(res);
  }
  return WebAssembly.compile(await res.arrayBuffer());
}

async function instantiate(glue: Glue, source: WasmSource, simd: boolean): Promise<Loaded> {
  const module = await compileModule(source);
  const out = await glue.default({ module_or_path: module });
  return { glue, memory: out.memory, simd, module };
}

/** Instantiate an already compiled module synchronously (workers of a pool). */
export function instantiateSync(glue: Glue, module: WebAssembly.Module, simd: boolean): Loaded {
  const out = glue.initSync({ module });
  return { glue, memory: out.memory, simd, module };
}

export async function load(opts: InitOptions): Promise<Loaded> {
  if (loaded) return loaded;
  loading ??= (async () => {
    if (opts.source !== undefined) {
      // A caller-supplied module: use it whichever build it is.
      const l = await instantiate(simdGlue, (await platform.resolve?.(opts.source)) ?? opts.source, false);
      return (loaded = { ...l, simd: l.glue.simdEnabled() });
    }
    const wantSimd = (opts.simd ?? platform.envSimd ?? true) && simdSupported();
    if (wantSimd) {
      const l = await instantiate(simdGlue, await platform.defaults('simd', opts), true);
      if (opts.simd === true || probe(l)) return (loaded = l);
    }
    return (loaded = await instantiate(scalarGlue, await platform.defaults('scalar', opts), false));
  })();
  try {
    return await loading;
  } catch (e) {
    loading = undefined;
    throw e;
  }
}

/** Synchronous load from bytes (Node's lazy init). */
export function loadSync(bytesFor: (variant: 'simd' | 'scalar') => BufferSource, envSimd = platform.envSimd): Loaded {
  if (loaded) return loaded;
  const wantSimd = (envSimd ?? true) && simdSupported();
  if (wantSimd) {
    const l = instantiateSync(simdGlue, new WebAssembly.Module(bytesFor('simd')), true);
    if (envSimd === true || probe(l)) return (loaded = l);
  }
  return (loaded = instantiateSync(scalarGlue, new WebAssembly.Module(bytesFor('scalar')), false));
}

/**
 * Correctness probe: decode a buffer that exercises the SIMD kernels (a fixint run, a
 * float64 run, a uint16 run) and compare with values computed here in JS.
 */
function probe(l: Loaded): boolean {
  const ints = Array.from({ length: 40 }, (_, i) => ((i * 37) % 160) - 32); // -32..127
  const floats = [1.5, -2.25, 1e300, -0.0, Math.PI, 6.02e23];
  const u16 = [256, 1000, 65535, 300, 40000];
  const bytes: number[] = [];
  const n = ints.length + floats.length + u16.length;
  bytes.push(0xdc, n >> 8, n & 0xff);
  for (const v of ints) bytes.push(v & 0xff);
  const dv = new DataView(new ArrayBuffer(8));
  for (const f of floats) {
    dv.setFloat64(0, f);
    bytes.push(0xcb, ...new Uint8Array(dv.buffer));
  }
  for (const v of u16) bytes.push(0xcd, v >> 8, v & 0xff);
  try {
    const b = l.glue.decodeMsgpack(new Uint8Array(bytes), 0, true, 64);
    try {
      const schema = JSON.parse(b.schema());
      const bufs = b.buffers();
      const col = schema.fields[0].col;
      if (col.type !== 'float64') return false;
      const ptr = bufs[col.buffers[0] * 2]!;
      const got = new Float64Array(l.memory.buffer.slice(ptr, ptr + n * 8));
      const want = [...ints, ...floats, ...u16];
      return want.every((w, i) => Object.is(w, got[i]));
    } finally {
      b.free();
    }
  } catch {
    return false;
  }
}

export function current(): Loaded {
  if (!loaded && platform.lazy) loaded = platform.lazy();
  if (!loaded) {
    throw new Error('arrowsmith: call `await init()` before decoding (Node loads itself on first use)');
  }
  return loaded;
}

/** The glue module of a build (workers instantiate the main thread's choice). */
export function glueFor(simd: boolean): Glue {
  return simd ? simdGlue : scalarGlue;
}

export function isLoaded(): boolean {
  return loaded !== undefined;
}
