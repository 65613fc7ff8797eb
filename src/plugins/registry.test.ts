/**
 * Plugin discovery: the built-in folder, extra directories, the contract checks (each naming the
 * file), broken modules skipped or fatal, duplicate ids refused. Uses temp directories of small .ts
 * plugin modules.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Type as T } from "@sinclair/typebox";
import { createLogger } from "../core/log.ts";
import { checkDefinition, loadPlugins, PluginLoadError } from "./registry.ts";

const TYPEBOX = Bun.resolveSync("@sinclair/typebox", import.meta.dir);
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A temp directory holding the given files (path → source). */
function directory(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "roundhouse-plugins-"));
  roots.push(root);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return root;
}

const plugin = (id: string, body = "") =>
  `import { Type } from ${JSON.stringify(TYPEBOX)};\nexport default { apiVersion: 1, id: ${JSON.stringify(id)}, configSchema: Type.Object({}), ${body} };\n`;

function logger() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, logger: createLogger("debug", (line) => lines.push(JSON.parse(line))) };
}

const schema = T.Object({});

describe("checkDefinition", () => {
  const problem = (candidate: unknown, expectedId?: string) => {
    try {
      checkDefinition(candidate, "/p/x.ts", expectedId);
    } catch (error) {
      expect(error).toBeInstanceOf(PluginLoadError);
      return (error as Error).message;
    }
    throw new Error("expected a PluginLoadError");
  };
  test("accepts a module's default export or the definition itself", () => {
    const definition = { apiVersion: 1, id: "ok", configSchema: schema };
    expect(checkDefinition({ default: definition }, "/p/x.ts").id).toBe("ok");
    expect(checkDefinition(definition, "/p/x.ts", "ok").id).toBe("ok");
  });
  test("every problem names the file", () => {
    expect(problem({ default: 3 })).toBe("plugin /p/x.ts: the module has no default export");
    expect(problem({ apiVersion: 3, id: "a", configSchema: schema })).toBe("plugin /p/x.ts: apiVersion must be 1 or 2, got 3");
    expect(problem({ apiVersion: 2, id: "a", configSchema: schema, serverTools: [{ name: "Bad Name", run: () => {} }] })).toBe(
      "plugin /p/x.ts: each server tool needs a name (lowercase letters, digits, '_') and a run function",
    );
    expect(problem({ apiVersion: 1, id: "Bad Id", configSchema: schema })).toBe(
      "plugin /p/x.ts: id must be 1 to 64 lowercase letters, digits, '.', '_' or '-'",
    );
    expect(problem({ apiVersion: 1, id: "a", configSchema: schema }, "b")).toBe("plugin /p/x.ts: id 'a' does not match its folder 'b'");
    expect(problem({ apiVersion: 1, id: "a", configSchema: { type: "object" } })).toBe("plugin /p/x.ts: configSchema must be a TypeBox schema");
    expect(problem({ apiVersion: 1, id: "a", configSchema: schema, onError: "nope" })).toBe("plugin /p/x.ts: onError must be a function");
  });
});

describe("loadPlugins", () => {
  test("the shipped built-ins are discovered from the plugins folder", () => {
    const loaded = loadPlugins({ directories: [], required: true, logger: logger().logger });
    expect([...loaded.keys()]).toEqual(["auto-beta-router", "auto-router", "context-compression", "datetime", "file-parser", "fusion", "mcp", "moderation", "pareto-router", "response-healing", "web", "web-fetch"]);
  });

  test("a built-in folder: one plugin per folder, the id matching the folder; test files ignored", () => {
    const builtinDir = directory({
      "alpha/index.ts": plugin("alpha"),
      "alpha/alpha.test.ts": "throw new Error('never imported');",
      "beta/index.ts": plugin("beta"),
      "README.md": "# not a plugin",
      "empty/notes.txt": "",
    });
    expect([...loadPlugins({ builtinDir, directories: [], required: false, logger: logger().logger }).keys()]).toEqual(["alpha", "beta"]);
    const wrong = directory({ "gamma/index.ts": plugin("delta") });
    expect(() => loadPlugins({ builtinDir: wrong, directories: [], required: false, logger: logger().logger })).toThrow(
      `plugin ${join(wrong, "gamma/index.ts")}: id 'delta' does not match its folder 'gamma'`,
    );
  });

  test("extra directories add plugins after the built-ins, as files or folders", () => {
    const builtinDir = directory({ "alpha/index.ts": plugin("alpha") });
    const extra = directory({ "one.ts": plugin("one"), "two/index.ts": plugin("two"), "types.d.ts": "export {};", "one.test.ts": "throw 1;" });
    const loaded = loadPlugins({ builtinDir, directories: [extra, join(extra, "missing")], required: true, logger: logger().logger });
    expect([...loaded.keys()]).toEqual(["alpha", "one", "two"]);
  });

  test("a broken module in an extra directory is skipped with an error log", () => {
    const builtinDir = directory({});
    const extra = directory({
      "a-broken.ts": "export default {{{ not typescript",
      "b-throws.ts": "throw new Error('boom at import');\nexport default {};",
      "c-bad.ts": "export default { apiVersion: 1, id: 'c' };",
      "d-good.ts": plugin("good"),
    });
    const { lines, logger: log } = logger();
    const loaded = loadPlugins({ builtinDir, directories: [extra], required: false, logger: log });
    expect([...loaded.keys()]).toEqual(["good"]);
    const skipped = lines.filter((line) => line.message === "plugin skipped");
    expect(skipped.map((line) => [line.level, line.file])).toEqual([
      ["error", join(extra, "a-broken.ts")],
      ["error", join(extra, "b-throws.ts")],
      ["error", join(extra, "c-bad.ts")],
    ]);
    expect(skipped[1]!.error).toBe(`plugin ${join(extra, "b-throws.ts")}: boom at import`);
    expect(skipped[2]!.error).toBe(`plugin ${join(extra, "c-bad.ts")}: configSchema must be a TypeBox schema`);
  });

  test("with plugins required, a broken module stops the start, naming the file", () => {
    const extra = directory({ "bad.ts": "throw new Error('boom');" });
    expect(() => loadPlugins({ builtinDir: directory({}), directories: [extra], required: true, logger: logger().logger })).toThrow(
      `plugin ${join(extra, "bad.ts")}: boom`,
    );
  });

  test("a duplicate id is refused: skipped when optional, fatal when required", () => {
    const builtinDir = directory({ "alpha/index.ts": plugin("alpha", "description: 'built-in'") });
    const extra = directory({ "again.ts": plugin("alpha", "description: 'impostor'"), "other.ts": plugin("other") });
    const { lines, logger: log } = logger();
    const loaded = loadPlugins({ builtinDir, directories: [extra], required: false, logger: log });
    expect(loaded.get("alpha")!.description).toBe("built-in");
    expect(loaded.has("other")).toBe(true);
    expect(lines.find((line) => line.message === "plugin skipped")!.error).toBe(
      `plugin ${join(extra, "again.ts")}: id 'alpha' is already used by ${join(builtinDir, "alpha/index.ts")}`,
    );
    expect(() => loadPlugins({ builtinDir, directories: [extra], required: true, logger: logger().logger })).toThrow("id 'alpha' is already used by");
    expect(() => loadPlugins({ builtins: [loaded.get("alpha")!, loaded.get("alpha")!], directories: [], required: false, logger: log })).toThrow(
      "plugin built-in alpha: id 'alpha' is already used by built-in alpha",
    );
  });
});
