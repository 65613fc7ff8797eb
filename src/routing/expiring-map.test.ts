import { describe, expect, test } from "bun:test";
import { ExpiringMap } from "./expiring-map.ts";
import { StickySessions } from "./sticky.ts";
import { RouterMemory } from "./traffic.ts";

describe("ExpiringMap", () => {
  test("past its bound the least recently written entry goes first, and each eviction is counted", () => {
    const map = new ExpiringMap<string>(3, () => 0);
    for (const key of ["a", "b", "c"]) map.set(key, key.toUpperCase(), 1000);
    // Rewriting "a" makes "b" the least recently written; reading does not reorder.
    map.set("a", "A2", 1000);
    expect(map.get("b")).toBe("B");
    map.set("d", "D", 1000);
    expect(map.get("b")).toBeUndefined();
    expect([map.get("a"), map.get("c"), map.get("d")]).toEqual(["A2", "C", "D"]);
    map.set("e", "E", 1000);
    expect(map.get("c")).toBeUndefined();
    expect(map.stats).toEqual({ size: 3, evictedForSize: 2, expired: 0 });
  });

  test("200,000 distinct keys never hold more than the bound; a key rewritten all along is never evicted", () => {
    const map = new ExpiringMap<number>(1000);
    for (let index = 0; index < 200_000; index++) {
      map.set(`session-${index}`, index, 60_000);
      if (index % 500 === 0) map.set("hot", index, 60_000);
    }
    expect(map.size).toBe(1000);
    expect(map.get("hot")).toBe(199_500);
    expect(map.get("session-199999")).toBe(199_999);
    expect(map.get("session-198999")).toBeUndefined();
    expect(map.stats.evictedForSize).toBe(200_001 - 1000);
  });

  test("an entry expires after its TTL: dropped when read, and by the sweep every 1024 writes", () => {
    const clock = { now: 0 };
    const map = new ExpiringMap<string>(10_000, () => clock.now);
    map.set("short", "x", 100);
    map.set("long", "y", 10_000);
    clock.now = 100;
    expect(map.get("short")).toBeUndefined();
    expect(map.get("long")).toBe("y");
    for (let index = 0; index < 1000; index++) map.set(`k${index}`, "v", 50);
    clock.now = 200;
    // The write that completes 1024 sweeps every expired entry, unread ones included.
    for (let index = 0; index < 22; index++) map.set(`later${index}`, "v", 50);
    expect(map.size).toBe(23);
    expect(map.stats).toEqual({ size: 23, evictedForSize: 0, expired: 1001 });
  });
});

describe("bounded routing state", () => {
  test("StickySessions holds at most max_entries conversations", () => {
    const sticky = new StickySessions({ maxEntries: 2, ttlMs: 60_000 });
    for (const session of ["s1", "s2", "s3"]) sticky.set(session, "endpoint");
    expect(sticky.size).toBe(2);
    expect(sticky.get("s1")).toBeUndefined();
    expect(sticky.stats.evictedForSize).toBe(1);
  });

  test("RouterMemory cuts a plugin's TTL to max_ttl_ms and holds at most max_entries", () => {
    const clock = { now: 0 };
    const memory = new RouterMemory({ maxEntries: 2, maxTtlMs: 1000 }, () => clock.now);
    memory.set("conversation", "model/a", Number.MAX_SAFE_INTEGER);
    clock.now = 999;
    expect(memory.get("conversation")).toBe("model/a");
    clock.now = 1000;
    expect(memory.get("conversation")).toBeUndefined();
    for (const key of ["c1", "c2", "c3"]) memory.set(key, "model/b", 60_000);
    expect(memory.get("c1")).toBeUndefined();
    expect(memory.stats).toMatchObject({ size: 2, evictedForSize: 1, expired: 1 });
  });
});
