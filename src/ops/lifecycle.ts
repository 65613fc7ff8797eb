/**
 * What a graceful shutdown needs to know: whether the gateway is shutting down (readiness answers 503),
 * and which streaming responses are still in flight, so they can finish within the grace period and be
 * aborted after it.
 */
export class Lifecycle {
  #shuttingDown = false;
  readonly #streams = new Set<{ abort: () => void }>();
  #idleWaiters: Array<() => void> = [];

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  beginShutdown(): void {
    this.#shuttingDown = true;
  }

  get activeStreams(): number {
    return this.#streams.size;
  }

  /** Registers a stream and how to abort it; returns the function to call once it ended (idempotent). */
  trackStream(abort: () => void): () => void {
    const entry = { abort };
    this.#streams.add(entry);
    return () => {
      if (!this.#streams.delete(entry) || this.#streams.size > 0) return;
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const resolve of waiters) resolve();
    };
  }

  /** Resolves once no stream is in flight. */
  idle(): Promise<void> {
    if (this.#streams.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Aborts every stream in flight; returns how many there were. */
  abortStreams(): number {
    const streams = [...this.#streams];
    for (const stream of streams) stream.abort();
    return streams.length;
  }
}
