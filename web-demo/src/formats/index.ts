import type { FormatName } from '../sniff.js';
import { hdf5Adapter } from './hdf5.js';
import { msgpackAdapter } from './msgpack.js';
import { tsfileAdapter } from './tsfile.js';
import type { FormatAdapter } from './types.js';

export const adapters: Record<FormatName, FormatAdapter> = { msgpack: msgpackAdapter, tsfile: tsfileAdapter, hdf5: hdf5Adapter };
export const FORMAT_LABEL: Record<FormatName, string> = { msgpack: 'MessagePack', tsfile: 'Apache TsFile', hdf5: 'HDF5' };
