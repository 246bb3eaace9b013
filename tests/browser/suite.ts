// The browser half of the MessagePack suite: the same corpora and the same comparison
// (compare.ts) as the Node tests, run in headless Chromium against the browser entry.
import { init, decodeMsgpack, decodeMsgpackStream, simdActive, DecodeError } from 'arrowsmith';
import { tableFromIPC, tableToIPC } from 'apache-arrow';
import { reference, referenceMulti, tableMismatches } from '../../packages/arrowsmith/test/compare.js';

interface Result { name: string; ok: boolean; detail?: string }
const results: Result[] = [];
const check = (name: string, problems: string[]) => results.push({ name, ok: problems.length === 0, detail: problems.slice(0, 3).join('; ') });

async function run() {
  const params = new URLSearchParams(location.search);
  const simd = params.get('simd') === '1';
  const { simd: active } = await init({ simd, baseUrl: new URL('./wasm/', location.href) });
  check(`init chose the ${simd ? 'SIMD' : 'scalar'} build`, active === simd && simdActive() === simd ? [] : [`active=${active}`]);
  const files = (await (await fetch('fixtures/index.json')).json()) as string[];
  for (const f of files) {
    const bytes = new Uint8Array(await (await fetch(`fixtures/${f}`)).arrayBuffer());
    const rows = f.includes('stream') ? referenceMulti(bytes) : (reference(bytes) as unknown[]);
    try {
      const t = decodeMsgpack(bytes);
      // Survives an IPC round trip (what the demo's worker does).
      check(`${f} matches @msgpack/msgpack`, tableMismatches(tableFromIPC(tableToIPC(t)), rows));
    } catch (e) {
      check(`${f} matches @msgpack/msgpack`, [String(e)]);
    }
  }
  // Streaming from a real fetch body.
  const res = await fetch('fixtures/py_records.msgpack');
  const whole = decodeMsgpack(new Uint8Array(await (await fetch('fixtures/py_records.msgpack')).arrayBuffer()));
  let n = 0;
  for await (const b of decodeMsgpackStream(res.body!, { batchRows: 700 })) n += b.numRows;
  check('stream from a fetch body', n === whole.numRows ? [] : [`${n} rows streamed, ${whole.numRows} decoded`]);
  try {
    decodeMsgpack(new Uint8Array([0x92, 0x01, 0xc1]));
    check('malformed input → DecodeError', ['no error thrown']);
  } catch (e) {
    check('malformed input → DecodeError', e instanceof DecodeError && e.offset === 2 ? [] : [String(e)]);
  }
}

run().then(
  () => ((window as unknown as { __results: Result[] }).__results = results),
  (e) => ((window as unknown as { __results: Result[] }).__results = [...results, { name: 'suite crashed', ok: false, detail: String(e?.stack ?? e) }]),
);
