import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { updateReadmeBlock } from "./readme-block.ts";

const dir = mkdtempSync(join(tmpdir(), "readme-block-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a bench's README block", () => {
  test("only what lies between its own markers is replaced, again and again", () => {
    const file = join(dir, "README.md");
    writeFileSync(file, "# T\n<!-- a:start -->\nold a\n<!-- a:end -->\nmiddle\n<!-- b:start -->\nold b\n<!-- b:end -->\ntail\n");
    expect(updateReadmeBlock("b", "new b\n", file)).toBe(true);
    expect(updateReadmeBlock("b", "newer b\n", file)).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("# T\n<!-- a:start -->\nold a\n<!-- a:end -->\nmiddle\n<!-- b:start -->\nnewer b\n<!-- b:end -->\ntail\n");
  });

  test("missing or misordered markers leave the file as it was", () => {
    const file = join(dir, "other.md");
    const text = "x\n<!-- c:end -->\n<!-- c:start -->\n";
    writeFileSync(file, text);
    expect(updateReadmeBlock("c", "y\n", file)).toBe(false);
    expect(updateReadmeBlock("d", "y\n", file)).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});
