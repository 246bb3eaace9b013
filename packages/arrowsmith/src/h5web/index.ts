/**
 * `arrowsmith/h5web`: HDF5 in h5web (`@h5web/app`) read by Arrowsmith, by HTTP ranges from
 * URLs or from `File`/`Blob`, without loading the file whole.
 *
 * ```tsx
 * import { App } from '@h5web/app';
 * import { ArrowsmithProvider } from 'arrowsmith/h5web';
 * <ArrowsmithProvider url="https://example.org/scan.h5"><App /></ArrowsmithProvider>
 * ```
 */
export { ArrowsmithApi, type ArrowsmithApiOptions } from './api.js';
export { ArrowsmithProvider, type ArrowsmithProviderProps } from './provider.js';
