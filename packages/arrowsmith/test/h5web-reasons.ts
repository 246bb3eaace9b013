/**
 * The documented differences between ArrowsmithApi and h5web's h5wasm provider, each with
 * its reason (the table in docs/h5web.md). A difference no rule explains fails the suite.
 * Every rule looks at the difference itself (the two answers) and the reference's entity,
 * never at a file name: a new fixture with the same cause is explained, any other is not.
 */
import type { Diff, Entity as Compared } from './h5web-diff.js';

/** What the rules read of an entity (h5web's, or ours with `description`). */
type Entity = Compared & {
  filters?: { id: number }[];
  virtualSources?: { file: string }[];
  description?: { externalFiles: string[] | null };
};

/** Filters libhdf5 has built in; others need a plugin, which the reference in Node does not load. */
const BUILT_IN = new Set([1, 2, 3, 4, 5, 6]);
const error = (s: string) => s.startsWith('{"error"');
const typeClass = (e?: Entity) => e?.type?.class as string | undefined;
const contains = (e: Entity | undefined, cls: string): boolean => JSON.stringify(e?.type ?? {}).includes(`"class":"${cls}"`);
/** An h5wasm metadata `type` (H5T class number) anywhere in the raw type. */
const rawClass = (e: Entity | undefined, n: number) => JSON.stringify(e?.rawType ?? {}).includes(`"type":${n},`);

export const REASONS = {
  plugin: 'reference: a filter outside libhdf5 (blosc, lz4, zstd, bitshuffle, lzf, bzip2) needs its plugin, which h5web loads through getPlugin and the Node reference does not have',
  bothRefuse: 'neither reads it: Arrowsmith names the feature (an unsupported filter, external storage without a resolver, long double)',
  float16: 'reference: h5wasm does not read float16 ("Float16 not supported")',
  float128: 'reference: h5wasm does not read long double / float128',
  complexClass: "reference: HDF5 2.0's complex class is Unknown to h5wasm's metadata (values as raw bytes); Arrowsmith gives Complex and [real, imag] pairs",
  customFloat: 'reference: a float whose bit layout is not IEEE (N-bit, custom exponent/mantissa) is read by h5wasm as IEEE bits of its size; Arrowsmith decodes the fields (the values h5py gives)',
  nbitInt: 'reference: N-bit integers are returned by h5wasm without sign extension or offset shift; Arrowsmith gives the values h5py gives',
  misaligned: 'reference: h5wasm reads a compound member at an offset its C struct would not use (packed, misaligned) from the wrong bytes; Arrowsmith reads each member at its file offset (the values h5py gives)',
  time: "reference: h5wasm gives the time class (PyTables' Time32/Time64) as raw bytes; Arrowsmith decodes PyTables' encoding (seconds)",
  refInCompound: 'reference: an object reference inside a compound comes out of h5wasm as an empty array; Arrowsmith gives the address (as the reference bytes elsewhere)',
  spacePad: 'space-padded strings: the padding is not part of the value (HDF5, h5py strip it); h5wasm keeps it',
  enumUnmatched: 'Arrowsmith refuses (RangeError) an enum element no label names: its Arrow read maps values to labels; h5wasm gives the raw integer',
  vdsRefuse: 'Arrowsmith refuses (a typed DecodeError naming it) a virtual dataset mapping it does not decode: an irregular hyperslab, a source grown past its extent',
  vdsExternal: "reference: an unlimited virtual dataset's extent comes from its sources; the reference holds one buffer, cannot open the source files and sees extent 0; Arrowsmith reads them through resolve",
  abort: 'reference: h5wasm aborts on this read (variable-length data through a missing plugin, VL fill values over unallocated chunks); its heap is then broken, so the suite opens a fresh instance per file',
  extStorage: 'reference: external storage (raw data in other files) cannot be opened by the reference, which holds one buffer; Arrowsmith reads the files through resolve',
  vdsFill: "reference: a virtual dataset's sources in other files cannot be opened by the reference (one buffer), which gives the fill value there; Arrowsmith reads them through resolve",
  badUtf8: 'a string declared UTF-8 that is not: both replace what does not decode (Arrowsmith with U+FFFD as TextDecoder does, h5wasm with lone surrogates)',
  beEnum: 'reference: h5wasm fails to convert a big-endian enum; Arrowsmith reads it',
} as const;

/** Our raw type (Hdf5Type) of what is compared. */
interface Raw {
  class: string;
  members?: { name: string; offset: number; type: Raw }[];
  base?: Raw;
  size?: number;
  dims?: number[];
  [k: string]: unknown;
}
const walk = (t: Raw | undefined, f: (t: Raw) => boolean): boolean => !!t && (f(t) || !!t.base && walk(t.base, f) || (t.members ?? []).some((m) => walk(m.type, f)));
/** The alignment a C compiler gives a member: its primitive's size, at most 8. */
const align = (t: Raw | undefined): number => (!t ? 1 : t.base ? align(t.base) : t.members ? Math.max(1, ...t.members.map((m) => align(m.type))) : Math.min(8, Math.max(1, t.size ?? 1)));
const misaligned = (t: Raw | undefined) => walk(t, (x) => (x.members ?? []).some((m) => m.offset % align(m.type) !== 0));

export function explain(d: Diff, e?: Entity, ours?: Entity): string | undefined {
  const t = d.theirs;
  const o = d.ours;
  const raw = ours?.rawType as Raw | undefined;
  const pluginFilter = (e?.filters ?? []).some((f) => !BUILT_IN.has(f.id));
  if (error(t) && error(o)) return REASONS.bothRefuse;
  if (t.includes('Float16 not supported')) return REASONS.float16;
  if (t.includes('Float128 not supported')) return REASONS.float128;
  // The engine's words for a wasm trap: V8's "memory access out of bounds", SpiderMonkey's "index out of bounds".
  if (error(t) && /Aborted|memory access out of bounds|index out of bounds|unreachable/.test(t)) return REASONS.abort;
  if (error(t) && ours?.description?.externalFiles) return REASONS.extStorage;
  if (d.what.startsWith('value') && e?.virtualSources?.some((s) => s.file !== '.')) return REASONS.vdsFill;
  if (o.includes('\ufffd')) return t.includes('\\ud') ? REASONS.badUtf8 : undefined;
  if (error(t) && pluginFilter) return REASONS.plugin;
  if (error(t) && typeClass(e) === 'Enumeration' && (e?.type as { base?: { endianness?: string } } | undefined)?.base?.endianness === 'big-endian') return REASONS.beEnum;
  if (o.includes('no label of the enum names') && !error(t)) return REASONS.enumUnmatched;
  if (o.includes('virtual dataset mapping') && !error(t)) return REASONS.vdsRefuse;
  if ((d.what === 'child' || d.what === 'entity') && e?.virtualSources?.some((s) => s.file !== '.') && t.includes('"dims":[0]')) return REASONS.vdsExternal;
  if (o.includes('"class":"Complex"') && t.includes('"class":"Unknown"')) return REASONS.complexClass;
  if (contains(e, 'Unknown') && rawClass(e, 11)) return REASONS.complexClass;
  if (typeClass(e) === 'Unknown' && t.includes('Uint8Array') && /"realType"|\[\[/.test(o)) return REASONS.complexClass;
  if (typeClass(e) === 'Time' || contains(e, 'Time')) return REASONS.time;
  if (walk(raw, (x) => x.class === 'complex')) return REASONS.complexClass;
  if (walk(raw, (x) => x.class === 'float' && x.ieee === false)) return REASONS.customFloat;
  if (walk(raw, (x) => x.class === 'int' && x.precision !== undefined)) return REASONS.nbitInt;
  if (misaligned(raw)) return REASONS.misaligned;
  if (walk(raw, (x) => x.class === 'compound' && (x.members ?? []).some((m) => walk(m.type, (y) => y.class === 'reference')))) return REASONS.refInCompound;
  if (d.what.startsWith('value') && typeClass(e) === 'String' && (e?.type as { strPad?: string } | undefined)?.strPad === 'space-padded') return REASONS.spacePad;
  return undefined;
}
