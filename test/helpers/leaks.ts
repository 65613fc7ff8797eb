/**
 * Timers the gateway's own code left pending. Wraps the global timer functions (install it before the
 * gateway starts, in-process) and keeps the timers created from a file under `root` that neither fired
 * nor were cleared. Bun's process.getActiveResourcesInfo() reports no timers, hence this.
 */
export interface TimerTracker {
  /** Pending timers (and intervals) created under `root`, longer than `minMs`, with where they were made. */
  pending(minMs?: number): Array<{ ms: number; interval: boolean; where: string }>;
  /** Forgets the timers pending now: the gateway's own lifetime timers, started with it (housekeeping). */
  forgetStarted(): void;
  /** Puts the original timer functions back (bun test runs every file in one process). */
  restore(): void;
}

export function trackTimers(root: string): TimerTracker {
  const g = globalThis as Record<string, any>;
  const live = new Map<unknown, { ms: number; interval: boolean; where: string }>();
  const wrap = (original: (...args: any[]) => any, interval: boolean) =>
    function (this: unknown, callback: (...args: any[]) => void, ms?: number, ...args: any[]) {
      const stack = new Error().stack ?? "";
      const line = stack.split("\n").find((entry) => entry.includes(root));
      if (typeof callback !== "function" || line === undefined) return original.call(this, callback, ms, ...args);
      const timer = original.call(
        this,
        (...inner: any[]) => {
          if (!interval) live.delete(timer);
          callback(...inner);
        },
        ms,
        ...args,
      );
      live.set(timer, { ms: ms ?? 0, interval, where: line.trim() });
      return timer;
    };
  const clear = (original: (timer: unknown) => void) => (timer: unknown) => {
    live.delete(timer);
    original(timer);
  };
  const originals = { setTimeout: g.setTimeout, setInterval: g.setInterval, clearTimeout: g.clearTimeout, clearInterval: g.clearInterval };
  g.setTimeout = Object.assign(wrap(g.setTimeout, false), g.setTimeout);
  g.setInterval = Object.assign(wrap(g.setInterval, true), g.setInterval);
  g.clearTimeout = clear(g.clearTimeout);
  g.clearInterval = clear(g.clearInterval);
  return {
    pending: (minMs = 0) => [...live.values()].filter((timer) => timer.interval || timer.ms > minMs),
    forgetStarted: () => live.clear(),
    restore: () => Object.assign(g, originals),
  };
}
