/**
 * A deadline for one operation: a signal that aborts with a TimeoutError after `ms`, or with the
 * parent signal's reason, whichever comes first. `clear()` when the operation ends stops its timer.
 * AbortSignal.timeout's timer cannot be stopped: it runs to its end and holds its signal and all that
 * listens on it (a fetch, a promise, a closure over a result) for the full time after the operation
 * ended, which under load is the size of every operation of the last `ms` milliseconds.
 */
export interface Deadline {
  signal: AbortSignal;
  /** Whether the deadline itself fired (not the parent). */
  timedOut(): boolean;
  clear(): void;
}

export function deadline(ms: number, parent?: AbortSignal, what = "The operation"): Deadline {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new DOMException(`${what} timed out after ${ms} ms.`, "TimeoutError")), ms);
  return {
    signal: parent ? AbortSignal.any([parent, timeout.signal]) : timeout.signal,
    timedOut: () => timeout.signal.aborted,
    clear: () => clearTimeout(timer),
  };
}
