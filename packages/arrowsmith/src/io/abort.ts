/** AbortSignal handling shared by every asynchronous read. */

/** What an aborted read rejects with: the signal's reason (an AbortError when none was given). */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/**
 * `work()`, rejecting with the signal's reason as soon as it aborts (already aborted: before
 * starting). The work itself checks the signal between its steps and stops at the next one;
 * whatever it still produces is dropped.
 */
export function abortable<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  if (!signal) return work();
  if (signal.aborted) return Promise.reject(abortReason(signal));
  const p = work();
  p.catch(() => {}); // after an abort nobody waits for it
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([p, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** Throw the signal's reason if it has aborted (between the steps of a read). */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}
