/** Compiling a wasm module from bytes, a URL or a Response, with errors that say what came back. */
import { isResponse } from '../io/source.js';

/**
 * `WebAssembly.Module` where the environment's types declare it (typed this way so that
 * the package's types compile without the DOM lib).
 */
export type CompiledWasm = typeof globalThis extends { WebAssembly: { Module: { prototype: infer M } } } ? M : never;

/** A .wasm to load: bytes, a URL, a Response, or a compiled module. */
export type WasmSource = ArrayBuffer | ArrayBufferView | URL | string | Response | Promise<Response> | CompiledWasm;

const MAGIC = [0x00, 0x61, 0x73, 0x6d];

function hasMagic(b: Uint8Array): boolean {
  return MAGIC.every((x, i) => b[i] === x);
}

/** What came back instead of a wasm module: its first bytes as text (or hex when binary). */
function describeBytes(b: Uint8Array): string {
  if (b.length === 0) return 'an empty body';
  const head = b.subarray(0, 64);
  const printable = head.every((c) => c === 9 || c === 10 || c === 13 || (c >= 32 && c < 127) || c >= 128);
  const text = printable ? JSON.stringify(new TextDecoder().decode(head).replace(/\s+/g, ' ')) : Array.from(head.subarray(0, 16), (c) => c.toString(16).padStart(2, '0')).join(' ');
  return `${b.length} bytes starting ${text}${b.length > head.length && printable ? '…' : ''}`;
}

function notWasm(what: string, where: string, detail: string): Error {
  return new Error(
    `arrowsmith: ${what} from ${where} is not a wasm module: ${detail}. ` +
      'Serve the package\'s wasm/ files as they are (with a bundler they are emitted for you), or point init({ baseUrl }) at a folder holding them.',
  );
}

/** Compile a wasm source, streaming where the server allows; a wrong answer names the URL, status and what came back. @internal */
export async function compileModule(src: WasmSource, what: string): Promise<WebAssembly.Module> {
  const s = await src;
  if (s instanceof WebAssembly.Module) return s;
  if (s instanceof ArrayBuffer || ArrayBuffer.isView(s)) {
    const b = s instanceof ArrayBuffer ? new Uint8Array(s) : new Uint8Array(s.buffer, s.byteOffset, s.byteLength);
    if (!hasMagic(b)) throw notWasm(what, 'the bytes given', describeBytes(b));
    return WebAssembly.compile(b as BufferSource);
  }
  let res: Response;
  if (isResponse(s)) res = s;
  else {
    const url = String(s);
    try {
      res = await fetch(url);
    } catch (e) {
      throw new Error(`arrowsmith: could not fetch ${what} from ${url}: ${(e as Error)?.message ?? e}`, { cause: e });
    }
  }
  const where = res.url || String(isResponse(s) ? 'a Response' : s);
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok) {
    const body = new Uint8Array(await res.arrayBuffer().catch(() => new ArrayBuffer(0)));
    throw notWasm(what, where, `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${type ? `, ${type}` : ''}, ${describeBytes(body)}`);
  }
  if (typeof WebAssembly.compileStreaming === 'function' && type.startsWith('application/wasm')) {
    try {
      return await WebAssembly.compileStreaming(res);
    } catch (e) {
      throw new Error(`arrowsmith: ${what} from ${where} (HTTP ${res.status}, ${type}) did not compile: ${(e as Error)?.message ?? e}`, { cause: e });
    }
  }
  const body = new Uint8Array(await res.arrayBuffer());
  if (!hasMagic(body)) throw notWasm(what, where, `HTTP ${res.status}${type ? `, ${type}` : ''}, ${describeBytes(body)}`);
  return WebAssembly.compile(body as BufferSource);
}
