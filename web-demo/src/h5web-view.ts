// The h5web viewer (@h5web/app) on Arrowsmith's provider, mounted into an element: a dropped
// File or a URL read by HTTP ranges. Loaded only when a viewer is opened (its own chunk).
import { App } from '@h5web/app';
import { init } from 'arrowsmith';
import { ArrowsmithProvider } from 'arrowsmith/h5web';
import { createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';

let styled = false;
/** h5web's stylesheet, copied beside the bundle as h5web.css by build.mjs. */
function addStyles(): void {
  if (styled) return;
  styled = true;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = new URL('h5web.css', document.baseURI).href;
  document.head.append(link);
}

export type ViewerSource = { url: string } | { file: File };

/** Mounts h5web in `el` on `source` (at `path`, else the root); the returned function unmounts it and closes the file. */
export async function mountViewer(el: HTMLElement, source: ViewerSource, path?: string): Promise<() => void> {
  addStyles();
  await init({ baseUrl: new URL('wasm/', document.baseURI), formats: ['hdf5'] });
  const root: Root = createRoot(el);
  const props = 'url' in source ? { url: source.url } : { file: source.file, options: { filepath: source.file.name } };
  root.render(createElement(ArrowsmithProvider, props, createElement(App, { sidebarOpen: true, ...(path && { initialPath: path }) })));
  return () => root.unmount();
}
