/** A numeric slice as a NumPy `.npy` file (format 1.0): what h5web's NPY export downloads. */
import { DTypeClass, type Dataset, type ExportURL } from '@h5web/app';

/** The export of `dataset` (its `selection`) as NPY, or undefined for types NPY does not hold as plain numbers. */
export function npyBlob(dataset: Dataset, selection: string | undefined, value: () => Promise<unknown>): ExportURL | undefined {
  const t = dataset.type;
  if (t.class !== DTypeClass.Integer && t.class !== DTypeClass.Float) return undefined;
  if (!('dims' in dataset.shape)) return undefined;
  const dims = dataset.shape.dims;
  const members = selection?.split(',');
  const shape = members ? dims.filter((_, k) => members[k] === ':') : dims;
  const kind = t.class === DTypeClass.Float ? 'f' : t.signed ? 'i' : 'u';
  return async () => {
    const v = (await value()) as ArrayBufferView | number | bigint;
    const data = ArrayBuffer.isView(v) ? v : null;
    if (!data) return new Blob([]);
    // The values are native typed arrays (little-endian) whatever the file's byte order.
    const descr = `${t.size === 8 ? '|' : '<'}${kind}${t.size / 8}`;
    const dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
    // Magic, version 1.0, header length; the header padded with spaces to a multiple of 64, ending in \n.
    const unpadded = 10 + dict.length + 1;
    const header = dict + ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
    const pre = new Uint8Array(10);
    pre.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
    new DataView(pre.buffer).setUint16(8, header.length, true);
    // A copy: the values may be a view of shared memory, which a Blob does not take.
    return new Blob([pre, header, new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice()]);
  };
}
