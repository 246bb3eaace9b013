/**
 * What a pool worker does, whatever the platform: instantiate the module it is sent,
 * run decode tasks, keep each decoded batch in its wasm memory until told where to write
 * it (shared output) or send it back at once (transfer mode).
 */
import type { BatchDesc, ColumnDesc, WasmBatchHandle } from '../types.js';
import { DecodeError, toDecodeError, wasmCall } from '../errors.js';
import { Hdf5File } from '../formats/hdf5/file.js';
import { httpReader } from '../io/http.js';
import { withConfig } from '../wasm/msgpack-options.js';
import type { RangeReader } from '../io/source.js';
import { TsFile } from '../formats/tsfile/file.js';
import { adopt, FORMATS, instance, loaded, ownedCopy, type Loaded } from '../wasm/instance.js';
import { writeBits } from './bits.js';
import { fromWire, type Decoded, type FileRef, type FromWorker, type ToWorker, type WasmMemory, type WireError, type WireJob, type WriteOp } from '../pool/protocol.js';

export interface Port {
  post(message: FromWorker, transfer?: Transferable[]): void;
  onMessage(f: (message: ToWorker) => void): void;
}

export function serve(port: Port): void {
  const held = new Map<number, { h: WasmBatchHandle; ptrs: Uint32Array; wasm: Loaded }>();
  const files = new Map<number, Promise<TsFile | Hdf5File>>();
  const reads = new Map<number, { resolve: (b: Uint8Array) => void; reject: (e: Error) => void }>();
  let nextReq = 0;
  let tasks: Promise<void> = Promise.resolve();
  const memory = (): WasmMemory => Object.fromEntries(FORMATS.flatMap((f) => (loaded(f) ? [[f, loaded(f)!.memoryBytes()]] : [])));

  /** A RangeReader over whatever the file ref names. */
  function readerFor(ref: FileRef): RangeReader | Uint8Array | Blob | string | Promise<RangeReader> {
    switch (ref.kind) {
      case 'path':
        return ref.path;
      case 'shared':
        return new Uint8Array(ref.buffer, ref.offset, ref.length);
      case 'blob':
        return ref.blob;
      case 'url':
        return httpReader(ref.url, ref.format, ref.policy, ref.identity);
      case 'proxy':
        return {
          size: ref.size,
          read: (offset, length) =>
            new Promise((resolve, reject) => {
              const req = nextReq++;
              reads.set(req, { resolve, reject });
              port.post({ type: 'read', file: ref.id, req, offset, length });
            }),
        };
    }
  }

  function open<T extends TsFile | Hdf5File>(ref: FileRef, how: (src: RangeReader | Uint8Array | Blob | string) => Promise<T>): Promise<T> {
    let f = files.get(ref.id);
    if (!f) {
      f = Promise.resolve(readerFor(ref)).then(how);
      files.set(ref.id, f);
      f.catch(() => files.delete(ref.id));
    }
    return f as Promise<T>;
  }

  async function run(job: WireJob): Promise<WasmBatchHandle> {
    switch (job.kind) {
      case 'msgpack': {
        const w = instance('msgpack');
        return withConfig(w.glue, job.options, (c) => wasmCall(() => w.glue.decodeMsgpackPiece(fromWire(job.bytes), job.base, job.inArray, c))) as WasmBatchHandle;
      }
      case 'tsfile': {
        const f = await open(job.file, (s) => TsFile.openWith(instance('tsfile'), s));
        return f.readHandle(job.query, job.given && { ranges: job.given.ranges, bytes: fromWire(job.given.bytes) });
      }
      case 'hdf5':
        return (await open(job.file, (s) => Hdf5File.openWith(instance('hdf5'), s))).readHandle(job.path, job.start, job.count, { maxReadBytes: job.maxReadBytes }, job.select);
    }
  }

  // Workers never replace an instance (the pool replaces the worker), so the format's one
  // instance is the memory every handle of that format lives in.
  const view = (wasm: Loaded, ptrs: Uint32Array, i: number) => new Uint8Array(wasm.memory.buffer, ptrs[2 * i]!, ptrs[2 * i + 1]!);

  async function task(id: number, job: WireJob, shared: boolean, lend?: SharedArrayBuffer): Promise<void> {
    try {
      const h = await run(job);
      const wasm = instance(job.kind);
      const desc = JSON.parse(h.schema()) as BatchDesc;
      const ptrs = h.buffers();
      const lens = Array.from({ length: ptrs.length / 2 }, (_, i) => ptrs[2 * i + 1]!);
      const result: Decoded = { desc, lens, dicts: dictionaries(desc, (i) => view(wasm, ptrs, i)) };
      if (shared) {
        held.set(id, { h, ptrs, wasm });
        port.post({ type: 'decoded', id, result, memory: memory() });
      } else {
        try {
          const at = lend && lendPlaces(ptrs, lend.byteLength);
          if (at) {
            // String and binary bytes travel in buffers of their own (browsers' TextDecoder
            // rejects views of shared memory); the rest is written into the lent memory.
            const own = textBuffers(desc);
            result.buffers = lens.map((_, i) => (own.has(i) ? (ownedCopy(view(wasm, ptrs, i)).buffer as ArrayBuffer) : new ArrayBuffer(0)));
            lens.forEach((n, i) => own.has(i) || new Uint8Array(lend!, at[i]!, n).set(view(wasm, ptrs, i)));
            result.lent = at.map((a, i) => (own.has(i) ? -1 : a));
          } else {
            result.buffers = lens.map((_, i) => (ownedCopy(view(wasm, ptrs, i)).buffer as ArrayBuffer));
          }
        } finally {
          h.free();
        }
        port.post({ type: 'decoded', id, result, memory: memory() }, result.buffers.filter((b) => b.byteLength > 0));
      }
    } catch (e) {
      port.post({ type: 'failed', id, error: wire(e), memory: memory() });
    }
  }

  function write(id: number, ops: WriteOp[]): void {
    const got = held.get(id);
    if (!got) return port.post({ type: 'failed', id, error: { name: 'Error', message: `arrowsmith: pool task ${id} has no decoded batch` }, memory: memory() });
    held.delete(id);
    const out: ArrayBuffer[] = [];
    try {
      for (const op of ops) {
        const src = op.op === 'bits' && op.src < 0 ? undefined : view(got.wasm, got.ptrs, op.src);
        switch (op.op) {
          case 'bytes':
            new Uint8Array(op.dst, op.at, src!.length).set(src!);
            break;
          case 'bits':
            writeBits(src, op.n, new Int32Array(op.dst), op.bit);
            break;
          case 'offsets': {
            const s = new Int32Array(src!.buffer, src!.byteOffset, op.n);
            const d = new Int32Array(op.dst, op.at * 4, op.n);
            for (let i = 0; i < op.n; i++) d[i] = s[i]! + op.add;
            break;
          }
          case 'remap':
            remap(new Int32Array(src!.buffer, src!.byteOffset, op.n), new Int32Array(op.dst, op.at * 4, op.n), op.map);
            break;
          case 'out':
            out.push(ownedCopy(src!).buffer as ArrayBuffer);
            break;
        }
      }
    } catch (e) {
      got.h.free();
      return port.post({ type: 'failed', id, error: wire(e), memory: memory() });
    }
    got.h.free();
    port.post({ type: 'written', id, out, memory: memory() }, out);
  }

  port.onMessage((m) => {
    switch (m.type) {
      case 'module':
        adopt(m.format, m.module, m.simd);
        break;
      case 'task':
        // One task at a time, in the order sent (the pool sends the next before this one
        // ends, workers.ts): tasks that wait for bytes never interleave in one instance.
        tasks = tasks.then(() => task(m.id, m.job, m.shared, m.lend));
        break;
      case 'write':
        write(m.id, m.ops);
        break;
      case 'drop':
        held.get(m.id)?.h.free();
        held.delete(m.id);
        break;
      case 'forget':
        files.get(m.file)?.then((f) => f.close()).catch(() => {});
        files.delete(m.file);
        break;
      case 'bytes': {
        const r = reads.get(m.req);
        reads.delete(m.req);
        if (m.bytes) r?.resolve(fromWire(m.bytes));
        else r?.reject(new Error(m.error ?? 'arrowsmith: read failed'));
        break;
      }
    }
  });
  // Modules arrive with the first job of their format: the worker is ready once it runs.
  port.post({ type: 'ready', memory: memory() });
}

/**
 * Where a batch's buffers (flat [ptr, len, ...] in wasm memory) go in lent memory of `room`
 * bytes: one after another, each at its source's alignment mod 8 (V8 copies into shared
 * memory a word at a time only between equally aligned addresses; values keep their type's
 * alignment); undefined when they do not fit.
 */
export function lendPlaces(ptrs: Uint32Array, room: number): number[] | undefined {
  const at: number[] = [];
  let end = 0;
  for (let i = 0; i + 1 < ptrs.length; i += 2) {
    const a = end + (((ptrs[i]! & 7) - (end & 7)) & 7);
    at.push(a);
    end = a + ptrs[i + 1]!;
  }
  return end <= room ? at : undefined;
}

/** The buffers holding Utf8/Binary bytes (a dictionary's values included), by index. */
export function textBuffers(desc: BatchDesc): Set<number> {
  const out = new Set<number>();
  const walk = (c: ColumnDesc) => {
    if (c.type === 'utf8' || c.type === 'binary') out.add(c.buffers[1]!);
    c.children.forEach((f) => walk(f.col));
  };
  desc.fields.forEach((f) => walk(f.col));
  return out;
}

/** Dictionary indices through a task-to-global map (a copy or a fill when it is trivial). */
function remap(s: Int32Array, d: Int32Array, map: Int32Array): void {
  if (map.every((g, i) => g === i)) return d.set(s);
  // One value (a device's tag column): every slot gets it; null slots are masked anyway.
  if (map.length === 1) return void d.fill(map[0]!);
  const n = map.length;
  for (let i = 0; i < s.length; i++) {
    const k = s[i]!;
    d[i] = k >= 0 && k < n ? map[k]! : 0;
  }
}

/** The values of each dictionary column (pre-order), read from the worker's batch. */
function dictionaries(desc: BatchDesc, bytes: (i: number) => Uint8Array): string[][] {
  const out: string[][] = [];
  const td = new TextDecoder();
  const walk = (c: ColumnDesc) => {
    if (c.type === 'dictionary') {
      const d = c.children[0]!.col;
      const offs = bytes(d.buffers[0]!);
      const o = new Int32Array(offs.slice().buffer);
      const data = bytes(d.buffers[1]!);
      out.push(Array.from({ length: d.len }, (_, i) => td.decode(data.subarray(o[i]!, o[i + 1]!))));
      return;
    }
    c.children.forEach((f) => walk(f.col));
  };
  desc.fields.forEach((f) => walk(f.col));
  return out;
}

function wire(e: unknown): WireError {
  const err = toDecodeError(e);
  if (err instanceof DecodeError) {
    return { name: err.name, message: err.message, decode: { format: err.format, offset: err.offset, code: err.code, message: err.message, bytesNeeded: err.bytesNeeded } };
  }
  const x = err instanceof Error ? err : new Error(String(err));
  return { name: x.name, message: x.message };
}
