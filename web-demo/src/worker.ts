/// <reference lib="webworker" />
// Decoding runs here so the page never freezes; the table goes back as Arrow IPC bytes
// (transferred, not copied).
import { tableToIPC } from 'apache-arrow';
import { DecodeError, decodeMsgpack, init } from 'arrowsmith';
import { sniff } from './sniff.js';

export interface DecodeRequest {
  id: number;
  bytes: ArrayBuffer;
}
export type DecodeReply =
  | { id: number; ok: true; ipc: Uint8Array; simd: boolean; ms: number; format: string }
  | { id: number; ok: false; error: { message: string; format?: string; offset?: number; code?: string } };

const ready = init({ baseUrl: new URL('./wasm/', self.location.href) });

self.onmessage = async (ev: MessageEvent<DecodeRequest>) => {
  const { id, bytes } = ev.data;
  try {
    const { simd } = await ready;
    const data = new Uint8Array(bytes);
    const format = sniff(data);
    if (format !== 'msgpack') throw new Error(`${format} files are not supported by this build yet`);
    const t0 = performance.now();
    const table = decodeMsgpack(data);
    const ms = performance.now() - t0;
    const ipc = tableToIPC(table, 'stream');
    const reply: DecodeReply = { id, ok: true, ipc, simd, ms, format };
    (self as unknown as Worker).postMessage(reply, [ipc.buffer]);
  } catch (e) {
    const err = e instanceof DecodeError ? { message: e.message, format: e.format, offset: e.offset, code: e.code } : { message: String((e as Error)?.message ?? e) };
    (self as unknown as Worker).postMessage({ id, ok: false, error: err } satisfies DecodeReply);
  }
};
