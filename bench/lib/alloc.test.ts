import { describe, expect, test } from "bun:test";
import { allocPerRequest, allocTable } from "./alloc.ts";

describe("cells allocated per request", () => {
  test("the difference of two counts over the requests, types that did not grow left out, largest first", () => {
    const row = allocPerRequest("gateway", "JSON request", { types: { Object: 100, Function: 50, string: 10, Map: 3 }, collected: false }, { types: { Object: 300, Function: 250, string: 60, Map: 3, Promise: 40 }, collected: false }, 10);
    expect(row.perRequest).toEqual([["Function", 20], ["Object", 20], ["string", 5], ["Promise", 4]]);
    expect(row.total).toBe(49);
  });

  test("a collection between the counts makes the measure invalid, as do no requests", () => {
    const count = { types: { Object: 1 }, collected: false };
    expect(() => allocPerRequest("floor", "stream", count, { ...count, collected: true }, 10)).toThrow("a collection ran");
    expect(() => allocPerRequest("floor", "stream", count, count, 0)).toThrow("no requests");
  });

  test("the table gives each unit's totals against the first target and the last target's largest types", () => {
    const floor = allocPerRequest("floor", "JSON request", { types: {}, collected: false }, { types: { Object: 40, string: 20 }, collected: false }, 2);
    const gateway = allocPerRequest("gateway", "JSON request", { types: {}, collected: false }, { types: { Object: 100, Function: 60, string: 40 }, collected: false }, 2);
    const stream = allocPerRequest("floor", "stream", { types: {}, collected: false }, { types: { Array: 3 }, collected: false }, 1);
    const table = allocTable([floor, gateway, stream], 2);
    expect(table).toContain("**Cells allocated per JSON request**");
    expect(table).toContain("| target | cells | × floor | Object | Function |");
    expect(table).toContain("| floor | 30.0 | ×1.00 | 20.0 | 0.0 |");
    expect(table).toContain("| gateway | 100.0 | ×3.33 | 50.0 | 30.0 |");
    expect(table).toContain("**Cells allocated per stream**");
    expect(table).toContain("| floor | 3.0 | ×1.00 | 3.0 |");
  });
});
