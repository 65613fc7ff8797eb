import { describe, expect, test } from "bun:test";
import { functionNames, MAX_FUNCTION_NAME } from "./names.ts";

describe("MCP function names", () => {
  test("are <label>__<tool> with every other character replaced by an underscore", () => {
    expect([...functionNames("my server", ["search", "files.read", "naïve/tool"])]).toEqual([
      ["my_server__search", "search"],
      ["my_server__files_read", "files.read"],
      ["my_server__na_ve_tool", "naïve/tool"],
    ]);
  });

  test("a name longer than 64 characters is cut and ends in a hash of the tool's name", () => {
    const long = `query_${"x".repeat(80)}`;
    const other = `query_${"x".repeat(79)}y`;
    const names = [...functionNames("docs", [long, other]).keys()];
    for (const name of names) {
      expect(name.length).toBeLessThanOrEqual(MAX_FUNCTION_NAME);
      expect(name).toMatch(/^docs__query_x+_[0-9a-f]{8}$/);
    }
    expect(names[0]).not.toBe(names[1]);
  });

  test("tools that would share a name get distinct, stable names", () => {
    const first = functionNames("s", ["a.b", "a_b", "c"]);
    expect(first.size).toBe(3);
    expect(first.get("s__c")).toBe("c");
    expect([...first.values()].sort()).toEqual(["a.b", "a_b", "c"]);
    expect([...functionNames("s", ["a.b", "a_b", "c"])]).toEqual([...first]);
  });

  test("a long label is cut so the tool's own name still shows", () => {
    const [name] = functionNames("l".repeat(100), ["run"]).keys();
    expect(name).toBe(`${"l".repeat(40)}__run`);
  });
});
