/**
 * The architecture rules of DESIGN.md (see test/helpers/architecture.ts for the layer table), checked on
 * every import of src/ and plugins/. Today's violations are listed in test/architecture-allowed.ts. That
 * list may only shrink: a listed violation that is gone fails the test until its line is deleted, so a
 * fix is never undone unnoticed, and a new violation fails at once.
 */
import { describe, expect, test } from "bun:test";
import { ALLOWED_CYCLES, ALLOWED_IMPORTS, ALLOWED_LONG_FILES, ALLOWED_PACKAGES } from "./architecture-allowed.ts";
import { findCycles, findViolations, MAX_LINES, sourceFiles, specifiers } from "./helpers/architecture.ts";

const files = sourceFiles();
const violations = findViolations(files);
const cycles = findCycles(files);

describe("architecture", () => {
  test("the scanner sees value, type-only, re-export and dynamic imports", () => {
    const text = [
      'import { a } from "./a.ts";',
      'import type { B } from "../b.ts";',
      'export { c } from "./c.ts";',
      'import "./side-effect.ts";',
      'const d = await import("./d.ts");',
      '// import { e } from "./commented.ts";',
      'import {\n  f,\n  g,\n} from "./multi-line.ts";',
    ].join("\n");
    expect(specifiers(text).sort()).toEqual(["../b.ts", "./a.ts", "./c.ts", "./d.ts", "./multi-line.ts", "./side-effect.ts"]);
  });

  test("the layer rule catches an upward import and allows a downward one", () => {
    const found = findViolations([
      { path: "src/core/x.ts", text: 'import { y } from "../api/y.ts";' },
      { path: "src/api/z.ts", text: 'import { x } from "../core/x.ts"; import { Elysia } from "elysia";' },
      { path: "src/routing/w.ts", text: 'import { drizzle } from "drizzle-orm/bun-sqlite";' },
      { path: "plugins/p/index.ts", text: 'import type { PluginApi } from "../../src/plugins/api.ts"; import { c } from "../../src/core/canonical.ts";' },
    ]);
    expect(found.imports).toEqual(["src/core/x.ts -> src/api/y.ts", "plugins/p/index.ts -> src/core/canonical.ts"]);
    expect(found.packages).toEqual(["src/routing/w.ts -> drizzle-orm/bun-sqlite"]);
  });

  test("imports follow the layer rule (no new upward import)", () => {
    expect(violations.imports.filter((edge) => !ALLOWED_IMPORTS.includes(edge))).toEqual([]);
  });

  test("no new import cycle between files", () => {
    expect(cycles.filter((cycle) => !ALLOWED_CYCLES.includes(cycle))).toEqual([]);
  });

  test("the cycle finder finds a cycle through three files and none in a chain", () => {
    const found = findCycles([
      { path: "src/core/a.ts", text: 'import { b } from "./b.ts";' },
      { path: "src/core/b.ts", text: 'import type { C } from "./c.ts";' },
      { path: "src/core/c.ts", text: 'import { a } from "./a.ts";' },
      { path: "src/core/d.ts", text: 'import { a } from "./a.ts";' },
    ]);
    expect(found).toEqual(["src/core/a.ts <-> src/core/b.ts <-> src/core/c.ts"]);
  });

  test("elysia only at the edge; drizzle-orm and bun:sqlite only in storage", () => {
    expect(violations.packages.filter((edge) => !ALLOWED_PACKAGES.includes(edge))).toEqual([]);
  });

  test(`source files stay under ${MAX_LINES} lines (listed ones may not grow)`, () => {
    const grown = violations.longFiles.filter(({ path, lines }) => lines > (ALLOWED_LONG_FILES[path] ?? MAX_LINES));
    expect(grown).toEqual([]);
  });

  test("the allow-lists only shrink: every listed violation still exists", () => {
    const longPaths = new Map(violations.longFiles.map(({ path, lines }) => [path, lines]));
    expect(ALLOWED_IMPORTS.filter((edge) => !violations.imports.includes(edge))).toEqual([]);
    expect(ALLOWED_PACKAGES.filter((edge) => !violations.packages.includes(edge))).toEqual([]);
    expect(ALLOWED_CYCLES.filter((cycle) => !cycles.includes(cycle))).toEqual([]);
    expect(Object.keys(ALLOWED_LONG_FILES).filter((path) => !longPaths.has(path))).toEqual([]);
    // A listed file that shrank lowers its own cap.
    expect(Object.entries(ALLOWED_LONG_FILES).filter(([path, cap]) => (longPaths.get(path) ?? 0) < cap).map(([path]) => path)).toEqual([]);
  });
});
