// TsFile through the wasm build in Node: every fixture written by the official C++ (PyPI
// tsfile) and Java writers, every value compared with the JSON the generator dumped from
// the writer's input and the official reader's output.
import { RecordBatch, Table } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { openTsFile } from '../src/node.js';
import { TsFile } from '../src/formats/tsfile/file.js';
import { DecodeError } from '../src/errors.js';
import { reserveLeft, reserveOutput } from '../src/arrow/batch.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, fixturePairs } from './fixtures.js';
import { MODES, usePools } from './pools.js';
import { deviceMismatches, tableMismatches } from './tsfile-compare.js';

const fixtures = fixturePairs('tsfile', '.tsfile');

describe('TsFile (wasm, Node)', () => {
  usePools();
  it('has fixtures from both official writers', () => {
    expect(fixtures.filter((f) => f.name.startsWith('cpp_')).length).toBeGreaterThan(30);
    expect(fixtures.filter((f) => f.name.startsWith('java_')).length).toBeGreaterThan(3);
  });

  it('IoTDB server files: a sequence, an unsequence and a compacted file (tree model, read as the other tree fixtures)', () => {
    for (const kind of ['seq', 'unseq', 'compacted']) expect(fixtures.find((f) => f.name === `iotdb_${kind}.tsfile`)?.json.model).toBe('tree');
  });

  it('PyPI tsfile: 1,000 devices, some with a null tag (either tag)', () => {
    const { json } = fixtures.find((f) => f.name === 'cpp_1000_devices_null_tags.tsfile')!;
    expect(json.devices.length).toBe(1000);
    expect(json.devices.filter((d: { tags: unknown[] }) => d.tags[0] === null).length).toBeGreaterThan(0);
    expect(json.devices.filter((d: { tags: unknown[] }) => d.tags[1] === null).length).toBeGreaterThan(100);
  });

  it('Java 2.0.3 and 2.4.0 fixtures hold every type, each with its default and other encodings and compressions, nulls and a 200-column table', () => {
    const types = ['BOOLEAN', 'INT32', 'INT64', 'FLOAT', 'DOUBLE', 'TEXT', 'STRING', 'BLOB', 'DATE', 'TIMESTAMP'];
    for (const v of ['203', '240']) {
      for (const kind of ['table', 'aligned', 'nonaligned']) {
        const { json } = fixtures.find((f) => f.name === `java${v}_types_${kind}.tsfile`)!;
        const fields: [string, string][] = json.fields ?? json.series.map((s: string[]) => [s[0], s[1]]);
        expect(new Set(fields.map(([, t]) => t))).toEqual(new Set(types));
        const cols = json.devices.flatMap((d: { columns?: Record<string, unknown[]>; series?: Record<string, { values: unknown[] }> }) => Object.values(d.columns ?? {}).concat(Object.values(d.series ?? {}).map((s) => s.values)));
        if (kind === 'table') expect(cols.some((c: unknown[]) => c.includes(null))).toBe(true);
      }
      // The 2.4.0 writer keeps the schema's encodings (2.0.x table writers use the defaults).
      const { json } = fixtures.find((f) => f.name === `java${v}_types_aligned.tsfile`)!;
      expect(new Set(json.series.map((s: string[]) => `${s[1]} ${s[2]}`)).size).toBeGreaterThan(40);
      expect(new Set(json.series.map((s: string[]) => s[3])).size).toBe(6);
      const wide = fixtures.find((f) => f.name === `java${v}_wide_table.tsfile`)!.json;
      expect(wide.fields.length).toBe(200);
      expect(wide.devices.map((d: { tags: unknown[] }) => d.tags[1])).toContain(null);
    }
  });

  for (const { mode, options } of MODES) for (const { name, data, json } of fixtures.filter((f) => f.json.devices?.[0]?.columns)) {
    it(`table model: ${name} matches every value (${mode})`, async () => {
      const f = await openTsFile(data, options());
      const t = await f.read({ table: json.table, timeUnit: json.time_unit });
      expect(tableMismatches(t, json)).toEqual([]);
      // Pools of workers on a shared 2-core machine: cpp_1000_devices_null_tags takes seconds.
    }, 60_000);
  }

  for (const { mode, options } of MODES) for (const { name, data, json } of fixtures.filter((f) => f.json.model === 'tree' && f.json.devices)) {
    it(`tree model: ${name} matches every point (${mode})`, async () => {
      const f = await openTsFile(data, options());
      let points = 0;
      for (const dev of json.devices) {
        const { problems, points: n } = deviceMismatches(await f.read({ devices: [dev.path] }), dev);
        expect(problems, dev.path).toEqual([]);
        points += n;
      }
      expect(points).toBeGreaterThan(0);
    }, 60_000);
  }

  // Bounded batches: several per device (each window at most `rows` rows), together the
  // official reader's values. A single-device file and multi-chunk ones.
  // Each batch has its own dictionary types (tags, device): one schema to concatenate them.
  const concat = (batches: RecordBatch[]) => new Table(batches.map((b) => new RecordBatch(batches[0]!.schema, b.data)));
  const windowed = ['cpp_long_pages_ts2diff_lz4', 'cpp_multipage_gorilla_lz4', 'java_tree_aligned', 'java_tree_nonaligned'];
  for (const { mode, options } of MODES) for (const { name, data, json } of fixtures.filter((f) => windowed.includes(f.name.replace(/\.tsfile$/, '')))) {
    it(`batches of at most 50 rows: ${name} (${mode})`, async () => {
      const f = await openTsFile(data, options());
      const devices = f.devices();
      const readAll = async (q: { devices?: string[] }) => {
        const batches = [];
        for await (const b of f.batches({ ...q, table: json.table, timeUnit: json.time_unit, rows: 50 })) batches.push(b);
        for (const b of batches) expect(b.numRows).toBeLessThanOrEqual(50);
        return batches;
      };
      if (json.model === 'tree') {
        for (const dev of json.devices) {
          const batches = await readAll({ devices: [dev.path] });
          const { problems } = deviceMismatches(concat(batches), dev);
          expect(problems, dev.path).toEqual([]);
        }
      } else {
        const batches = await readAll({});
        expect(batches.length).toBeGreaterThan(3 * devices.length);
        expect(tableMismatches(concat(batches), json)).toEqual([]);
      }
      // A limit across windows and devices: the first rows of the whole read, in order.
      let n = 0;
      for await (const b of f.batches({ table: json.table, timeUnit: json.time_unit, rows: 50, limit: 120 })) n += b.numRows;
      expect(n).toBe(Math.min(120, (await f.read({ table: json.table, timeUnit: json.time_unit })).numRows));
    });
  }

  it('batches of one device from a ranged source fetch its chunks once, not once per window', async () => {
    const { data, json } = fixtures.find((f) => f.name === 'cpp_long_pages_ts2diff_lz4.tsfile')!;
    let fetched = 0;
    const source = { size: data.length, read: async (offset: number, length: number) => ((fetched += length), data.slice(offset, offset + length)) };
    const f = await openTsFile(source);
    const opened = fetched;
    const batches: RecordBatch[] = [];
    for await (const b of f.batches({ table: json.table, timeUnit: json.time_unit, rows: 50 })) batches.push(b);
    expect(batches.length).toBeGreaterThan(20);
    expect(tableMismatches(concat(batches), json)).toEqual([]);
    expect(fetched - opened).toBeLessThan(2 * data.length);
  });

  it('a limited read from a ranged source fetches the devices it needs, not the whole file', async () => {
    // (A big file's 10,000-row preview used to fetch every chunk of the table first.)
    const { data, json } = fixtures.find((f) => f.name === 'cpp_many_devices_ts2diff.tsfile')!;
    const { reads, source } = recorded(data);
    const fetched = () => reads.reduce((n, [a, b]) => n + b - a, 0);
    const f = await openTsFile(source);
    const opened = fetched();
    const t = await f.read({ table: json.table, timeUnit: json.time_unit, limit: 5 });
    const read = fetched() - opened;
    expect(t.numRows).toBe(5);
    expect((await f.read({ table: json.table, timeUnit: json.time_unit })).slice(0, 5).toArray().map(String)).toEqual(t.toArray().map(String));
    expect(read).toBeLessThan((data.length - opened) / 4);
  });

  /** A ranged source (neither memory nor a file) recording each read's [start, end). */
  const recorded = (data: Uint8Array) => {
    const reads: [number, number][] = [];
    return { reads, source: { size: data.length, read: async (o: number, n: number) => (reads.push([o, o + n]), data.slice(o, o + n)) } };
  };
  const tick = () => new Promise((r) => setTimeout(r, 20));

  it('an abort mid-stream ends the batches, no read follows, and the file reads on', async () => {
    const { data, json } = fixtures.find((f) => f.name === 'cpp_many_devices_ts2diff.tsfile')!;
    const { reads, source } = recorded(data);
    await using f = await openTsFile(source);
    const ac = new AbortController();
    const it = f.batches({ table: json.table, timeUnit: json.time_unit, rows: 5, signal: ac.signal });
    await it.next();
    ac.abort(new Error('stop'));
    await expect(it.next()).rejects.toThrow('stop');
    await tick();
    const after = reads.length;
    await tick();
    expect(reads.length).toBe(after);
    expect(tableMismatches(await f.read({ table: json.table, timeUnit: json.time_unit }), json)).toEqual([]);
  });

  it('times beyond ±2^53: a unit apache-arrow cannot read them in is a DecodeError; in ns every value reads', async () => {
    const { data, json } = fixtures.find((f) => f.name === 'cpp_time_extremes.tsfile')!;
    const f = await openTsFile(data);
    const str = (x: unknown) => JSON.stringify(x, (_, v) => (typeof v === 'bigint' ? String(v) : v));
    // The default (ms): refused at decode time, naming the cure.
    await expect(f.read()).rejects.toMatchObject({ name: 'DecodeError', format: 'TsFile', code: 'unsupported', message: expect.stringMatching(/timeUnit 'ns'/) });
    // A device whose values all fit reads in ms, s and us, and apache-arrow reads every value.
    for (const timeUnit of ['s', 'ms', 'us'] as const) {
      const t = await f.read({ devices: ['t.safe'], timeUnit });
      expect(() => [str(t.toArray()), t.getChild('time')!.toJSON(), str(t.get(0))]).not.toThrow();
    }
    // ±2^53 and ±2^63 (every int64): read as ns, no accessor throws, raw values exact.
    for (const pool of [undefined, ...MODES.map((m) => m.options().pool).filter(Boolean)]) {
      const t = await (await openTsFile(data, { pool })).read({ timeUnit: 'ns' });
      expect(t.numRows).toBe(11);
      expect(() => {
        for (let i = 0; i < t.numRows; i++) str(t.get(i));
        t.toArray();
        t.getChild('time')!.toJSON();
        t.getChild('ts')!.toArray();
      }).not.toThrow();
      expect(tableMismatches(t, json)).toEqual([]);
    }
    for (const [dev, refused] of [['t.edge', ['s', 'ms']], ['t.neg_edge', ['s', 'ms']], ['t.extreme', ['s', 'ms', 'us']]] as const) {
      for (const timeUnit of refused) await expect(f.read({ devices: [dev], timeUnit })).rejects.toMatchObject({ code: 'unsupported' });
    }
    expect((await f.read({ devices: ['t.edge'], timeUnit: 'us' })).get(1)!.time).toBe(9007199254740 + 993 / 1000); // 2^53 + 1 µs, as apache-arrow divides it
  });

  for (const name of ['iotdb_mods_tree', 'iotdb_mods_table']) {
    it(`IoTDB deletions: ${name} read with its .mods2 equals the server's answers after DELETE (bytes and a path; one thread and both pools)`, async () => {
      const file = (ext: string) => join(FIXTURES, 'tsfile', name + ext);
      const data = new Uint8Array(readFileSync(file('.tsfile')));
      const json = JSON.parse(readFileSync(file('.json'), 'utf8'));
      const table = json.iotdb_table as string | undefined;
      const plain = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v);
      let rows = 0;
      for (const pool of [undefined, ...MODES.map((m) => m.options().pool).filter(Boolean)]) {
        for (const mods of [new Uint8Array(readFileSync(file('.tsfile.mods2'))), file('.tsfile.mods2')]) {
          const f = await openTsFile(data, { pool, mods });
          rows = 0;
          for (const dev of json.after_deletes) {
            const names = Object.keys(dev.columns).filter((c) => c !== 'time');
            const t = await f.read({ table, devices: [dev.device], columns: names });
            expect(t.numRows, dev.device).toBe(dev.columns.time.length);
            for (const c of ['time', ...names]) expect([...t.getChild(c)!].map(plain), `${dev.device} ${c}`).toEqual(dev.columns[c]);
            rows += t.numRows;
          }
          expect((await f.read({ table })).numRows).toBe(rows);
          let batched = 0;
          for await (const b of f.batches({ table })) batched += b.numRows;
          expect(batched).toBe(rows);
        }
      }
      // Without the deletions the file reads as written: the deleted points come back.
      expect((await (await openTsFile(data)).read({ table })).numRows).toBeGreaterThan(rows);
      // A broken deletion file fails the open.
      await expect(openTsFile(data, { mods: new Uint8Array([1, 0, 0]) })).rejects.toMatchObject({ name: 'DecodeError', format: 'TsFile', code: 'truncated' });
    });
  }

  it('pushes a time range and a tag filter into the reader', async () => {
    const { data, json } = fixtures.find((f) => f.name === 'cpp_many_devices_ts2diff.tsfile')!;
    const f = await openTsFile(data);
    const dev = json.devices[1];
    const times = (dev.columns.time as number[]).map(BigInt);
    const [lo, hi] = [times[Math.floor(times.length / 4)]!, times[Math.floor((3 * times.length) / 4)]!];
    const tags = Object.fromEntries((json.tags as string[]).map((n, i) => [n, dev.tags[i]]));
    const t = await f.read({ table: json.table, tags, start: lo, end: hi });
    expect(t.toArray().map((r) => BigInt(r.time))).toEqual(times.filter((x) => x >= lo && x <= hi));
    const limited = await f.read({ table: json.table, limit: 3 });
    expect(limited.numRows).toBe(3);
    // A tag filter is a string: null (a JS caller's guess for "tag not set") is a DecodeError
    // naming the tag, not an error from inside the wasm glue.
    const tag = (json.tags as string[])[0]!;
    await expect(f.read({ table: json.table, tags: { [tag]: null as unknown as string } })).rejects.toThrow(new RegExp(`tag filter "${tag}" must be a string, not null`));
  });

  it('a bad query option is an argument DecodeError naming it (the wasm side validates the options object)', async () => {
    const { data, json } = fixtures.find((f) => f.name === 'cpp_many_devices_ts2diff.tsfile')!;
    const f = await openTsFile(data);
    const bad = async (q: object, message: string) => {
      const e = await f.read({ table: json.table, ...q }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(DecodeError);
      expect(e).toMatchObject({ format: 'TsFile', code: 'argument' });
      expect((e as Error).message).toContain(message);
    };
    await bad({ timeUnit: 'minutes' }, `option timeUnit must be one of 's', 'ms', 'us', 'ns', not 'minutes'`);
    await bad({ limit: '3' }, 'option limit must be a number, not "3"');
    await bad({ limit: 2.5 }, 'option limit must be a whole number from 0 to 2^32-1, not a fraction');
    await bad({ columns: 'a' }, 'option columns must be an array of strings, not "a"');
    await bad({ devices: [1] }, 'option devices must be an array of strings, not an array');
    await bad({ start: 1.5 }, 'option start must be a bigint (64-bit integer), not a fraction');
    // The same query with good values reads.
    expect((await f.read({ table: json.table, timeUnit: 'us', limit: 2 })).numRows).toBe(2);
  });

  it('reads a Blob by slices and gives the same table', async () => {
    const { data, json } = fixtures.find((f) => f.json.devices?.[0]?.columns)!;
    const whole = await (await openTsFile(data)).read({ table: json.table });
    const reads: number[] = [];
    const blob = new Blob([data as Uint8Array<ArrayBuffer>]);
    const src = { size: blob.size, read: async (o: number, n: number) => (reads.push(n), new Uint8Array(await blob.slice(o, o + n).arrayBuffer())) };
    const viaRanges = await (await openTsFile(src)).read({ table: json.table });
    expect(viaRanges.numRows).toBe(whole.numRows);
    expect(viaRanges.toArray().map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v)))).toEqual(
      whole.toArray().map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v))),
    );
    expect(reads.length).toBeGreaterThan(0);
  });

  it('reports a truncated file as a DecodeError naming TsFile and an offset', async () => {
    const { data } = fixtures[0]!;
    await expect(openTsFile(data.subarray(0, data.length - 10))).rejects.toMatchObject({ name: 'DecodeError', format: 'TsFile' });
    await expect(openTsFile(new Uint8Array([1, 2, 3]))).rejects.toMatchObject({ name: 'DecodeError', format: 'TsFile' });
  });

  // A one-thread whole read of many rows goes in pieces (device groups, one RecordBatch
  // each); the fixtures are small, so pieces of a few devices are forced here. A piece
  // dropped or read twice shows as a device's row count or the total being off.
  const rowsText = (t: Table) => JSON.stringify(t.toArray(), (_, v) => (typeof v === 'bigint' ? String(v) : v));
  for (const [name, pieceRows, pieces] of [
    ['cpp_many_devices_ts2diff', 50, 6], // 12 devices of 20 rows: pieces of 2
    ['cpp_1000_devices_null_tags', 23, 91], // 1,000 devices of 2 rows: 90 pieces of 11, then 10
  ] as const) {
    it(`whole read in pieces: ${name}, every value as the official reader's and as one read`, async () => {
      const { data, json } = fixtures.find((f) => f.name === `${name}.tsfile`)!;
      const q = { table: json.table, timeUnit: json.time_unit };
      const whole = await (await openTsFile(data)).read(q);
      expect(whole.batches.length).toBe(1);
      TsFile.pieceRows = pieceRows;
      try {
        for (const source of [data, { size: data.length, read: async (o: number, n: number) => data.slice(o, o + n) }]) {
          const t = await (await openTsFile(source)).read(q);
          expect(t.batches.length).toBe(pieces);
          expect(tableMismatches(t, json)).toEqual([]);
          expect(rowsText(t)).toBe(rowsText(whole));
        }
      } finally {
        TsFile.pieceRows = undefined;
      }
    }, 60_000);
  }

  it('reads into the output reserve (the warm start writes it), in pieces or not: every value as the official reader\'s, the columns in the reserve until it runs out', async () => {
    const { data, json } = fixtures.find((f) => f.name === 'cpp_many_devices_ts2diff.tsfile')!;
    const q = { table: json.table, timeUnit: json.time_unit };
    const buffers = (t: Table) => t.batches.flatMap((b) => b.data.children.flatMap((c) => [c.values, c.valueOffsets, c.nullBitmap].filter((x) => x?.byteLength))) as ArrayBufferView[];
    TsFile.pieceRows = 50;
    try {
      reserveOutput(1 << 20);
      const t = await (await openTsFile(data)).read(q);
      expect(tableMismatches(t, json)).toEqual([]);
      const inReserve = new Set(buffers(t).map((b) => b.buffer));
      expect(inReserve.size).toBe(1);
      expect([...inReserve][0]!.byteLength).toBe(1 << 20);
      const used = (1 << 20) - reserveLeft();
      expect(used).toBeGreaterThan(0);
      // A read of one device (not in pieces) goes there too, after the first read's columns.
      const [id1, id2] = json.devices[3].tags as string[];
      const d = await (await openTsFile(data)).read({ ...q, tags: { [json.tags[0]]: id1!, [json.tags[1]]: id2! } });
      expect(d.numRows).toBe(json.devices[3].rows);
      const text = (r: unknown) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v));
      expect(d.toArray().map(text)).toEqual(t.toArray().filter((r) => r[json.tags[0]] === id1 && r[json.tags[1]] === id2).map(text));
      expect(new Set(buffers(d).map((b) => b.buffer))).toEqual(inReserve);
      expect(Math.min(...buffers(d).map((b) => b.byteOffset))).toBeGreaterThanOrEqual(used);
      // A reserve too small for the read: the columns that fit go there, the rest get memory of their own.
      const usedBoth = (1 << 20) - reserveLeft();
      expect(usedBoth).toBeGreaterThan(used);
      reserveOutput(used / 2);
      const u = await (await openTsFile(data)).read(q);
      expect(tableMismatches(u, json)).toEqual([]);
      const owners = buffers(u).map((b) => b.buffer.byteLength);
      expect(owners).toContain(used / 2);
      expect(owners.some((n) => n !== used / 2)).toBe(true);
    } finally {
      TsFile.pieceRows = undefined;
      reserveOutput(0);
    }
    expect(reserveLeft()).toBe(0);
  }, 60_000);
});
