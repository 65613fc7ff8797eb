/**
 * One pending flush of something written behind: `schedule()` arms a timer for `delayMs` unless one is
 * armed already (many writes, one flush), `stop()` disarms it for good. The timer never keeps the
 * process alive.
 */
export class FlushTimer {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(
    private readonly delayMs: number,
    private readonly flush: () => unknown,
  ) {}

  schedule(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.delayMs);
    this.#timer.unref?.();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
