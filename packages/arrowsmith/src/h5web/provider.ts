/** `<ArrowsmithProvider>`: h5web's `DataProvider` on an `ArrowsmithApi`, as `H5WasmProvider` is on h5wasm. */
import { DataProvider, type DataProviderApi } from '@h5web/app';
import { createElement, useEffect, useMemo, useRef, type PropsWithChildren, type ReactElement } from 'react';
import type { FileSource } from '../io/source.js';
import { ArrowsmithApi, type ArrowsmithApiOptions } from './api.js';

export type ArrowsmithProviderProps = PropsWithChildren<
  ({ url: string | URL; file?: never } | { file: FileSource; url?: never }) & {
    /** `openHdf5`'s options (timeouts, retries, `resolve` for external links, a pool) and the name shown. */
    options?: ArrowsmithApiOptions;
    /** Export URLs of your own (as h5web's providers take them); NPY and h5web's built-in exports otherwise. */
    getExportURL?: DataProviderApi['getExportURL'];
  }
>;

/**
 * Opens `url` (read by HTTP ranges) or `file` (a `File`, `Blob` or bytes) for the h5web
 * components inside it. A new `url`/`file` opens a new file and closes the previous one.
 */
export function ArrowsmithProvider(props: ArrowsmithProviderProps): ReactElement {
  const { url, file, options, getExportURL, children } = props;
  const source = (url ?? file) as FileSource;
  // Options are read when the file opens: a new source reopens it, new options alone do not
  // (so an inline options object does not reopen the file at every render).
  const latest = useRef({ options, getExportURL });
  latest.current = { options, getExportURL };
  const api = useMemo(() => {
    const { options, getExportURL } = latest.current;
    const a = new ArrowsmithApi(source, options);
    if (getExportURL) {
      const own = a.getExportURL.bind(a);
      a.getExportURL = (...args) => getExportURL(...args) ?? own(...args);
    }
    return a;
  }, [source]);
  useEffect(() => () => void api.close(), [api]);
  return createElement(DataProvider, { api }, children);
}
