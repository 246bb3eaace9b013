/**
 * Correctness checks of a module instance: some engines report SIMD but compute wrong
 * results, so a SIMD build is used only when these agree with values computed in JS.
 */
import type { Glue as MsgpackGlue } from '../../wasm/arrowsmith_msgpack.js';

/** Whether a module instance computes right: its own SIMD check, and MessagePack's kernels on a probe. */
export function checks(format: string, glue: { simdCheck(): boolean }, memory: WebAssembly.Memory): boolean {
  try {
    if (!glue.simdCheck()) return false;
    return format !== 'msgpack' || msgpackProbe(glue as MsgpackGlue, memory);
  } catch {
    return false;
  }
}

/**
 * MessagePack's own kernels: a buffer that exercises them (a fixint run, a float64 run, a
 * uint16 run) compared with values computed here in JS.
 */
function msgpackProbe(glue: MsgpackGlue, memory: WebAssembly.Memory): boolean {
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
  const config = new glue.MsgpackConfig(undefined);
  let b: ReturnType<MsgpackGlue['decodeMsgpack']>;
  try {
    b = glue.decodeMsgpack(new Uint8Array(bytes), config);
  } finally {
    config.free();
  }
  try {
    const schema = JSON.parse(b.schema());
    const bufs = b.buffers();
    const col = schema.fields[0].col;
    if (col.type !== 'float64') return false;
    const ptr = bufs[col.buffers[0] * 2]!;
    const got = new Float64Array(memory.buffer.slice(ptr, ptr + n * 8));
    const want = [...ints, ...floats, ...u16];
    return want.every((w, i) => Object.is(w, got[i]));
  } finally {
    b.free();
  }
}
