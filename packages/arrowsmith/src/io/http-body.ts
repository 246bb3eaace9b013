/** What HTTP reads need besides requests: bodies read whole, errors in words, waits between retries. */

/**
 * Read a body into one buffer: exactly `expect` bytes when given (a shorter body is
 * `short(got)`; a longer one is refused before it is buffered), else all of it.
 */
export async function readBody(res: Response, expect: number | undefined, short: (got: number) => Error): Promise<Uint8Array> {
  if (!res.body) {
    if (expect) throw short(0);
    return new Uint8Array(0);
  }
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  const out = expect !== undefined ? new Uint8Array(expect) : undefined;
  let got = 0;
  try {
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      const v = step.value;
      if (out) {
        if (got + v.length > out.length) throw new Error(`the response holds more than the ${expect} bytes asked for`);
        out.set(v, got);
      } else {
        parts.push(v);
      }
      got += v.length;
    }
  } finally {
    reader.releaseLock();
  }
  if (out) {
    if (got < out.length) throw short(got);
    return out;
  }
  const all = new Uint8Array(got);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

/** An error in words, with its cause's code (ECONNRESET) or message. */
export function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  const more = cause instanceof Error ? ` (${(cause as { code?: string }).code ?? cause.message})` : '';
  return `${e.message}${more}`;
}

/** `Retry-After` in ms (seconds or an HTTP date), if given. */
export function retryAfter(h: string | null): number | undefined {
  if (!h) return undefined;
  if (/^\d+$/.test(h.trim())) return Number(h) * 1000;
  const t = Date.parse(h);
  return Number.isFinite(t) ? Math.max(0, t - Date.now()) : undefined;
}

/** Wait `ms`, or reject with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const stop = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}
