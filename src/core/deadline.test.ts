import { afterEach, describe, expect, jest, test } from "bun:test";
import { deadline } from "./deadline.ts";

describe("a deadline", () => {
  afterEach(() => jest.useRealTimers());

  test("aborts its signal with a TimeoutError once its time is up", () => {
    jest.useFakeTimers();
    const timeout = deadline(1000, undefined, "The lookup");
    jest.advanceTimersByTime(999);
    expect(timeout.signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    expect(timeout.signal.aborted).toBe(true);
    expect(timeout.timedOut()).toBe(true);
    expect((timeout.signal.reason as DOMException).name).toBe("TimeoutError");
    expect((timeout.signal.reason as DOMException).message).toBe("The lookup timed out after 1000 ms.");
  });

  test("aborts with its parent's reason, which is not a time-out", () => {
    const parent = new AbortController();
    const timeout = deadline(60_000, parent.signal);
    parent.abort(new Error("the client went away"));
    expect(timeout.signal.aborted).toBe(true);
    expect((timeout.signal.reason as Error).message).toBe("the client went away");
    expect(timeout.timedOut()).toBe(false);
    timeout.clear();
  });

  test("cleared when its operation ends, it never fires", () => {
    jest.useFakeTimers();
    const timeout = deadline(1000);
    timeout.clear();
    jest.advanceTimersByTime(5000);
    expect(timeout.signal.aborted).toBe(false);
    expect(timeout.timedOut()).toBe(false);
  });
});
