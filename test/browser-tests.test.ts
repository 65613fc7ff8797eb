/**
 * The browser tests drive Chromium through playwright-core in this process, whose client and server
 * halves hand each message to the other through setImmediate, in order. bun:test's `.resolves` and
 * `.rejects` matchers wait for their promise by running the event loop inside the matcher: immediates
 * queued after the waiting code run before those queued ahead of it, so a driver message can arrive
 * before the one creating the object it names, and the driver fails ("Object with guid response@… was
 * not bound in the connection"). Browser tests therefore await the driver's promise, then assert.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

test("no browser test asserts with .resolves or .rejects (they reorder the in-process driver's messages)", () => {
  const dir = import.meta.dir;
  const files = [...readdirSync(dir).map((name) => join(dir, name)), ...readdirSync(join(dir, "helpers")).map((name) => join(dir, "helpers", name))].filter((path) => path.endsWith(".ts"));
  const browserFiles = files.filter((path) => /from "(\.\/helpers\/chromium(\.ts)?|\.\/chromium(\.ts)?|playwright-core)"/.test(readFileSync(path, "utf8")));
  expect(browserFiles.length).toBeGreaterThanOrEqual(8);
  const offending = browserFiles.flatMap((path) =>
    readFileSync(path, "utf8")
      .split("\n")
      .flatMap((line, index) => (/\.(resolves|rejects)\b/.test(line) ? [`${path.slice(dir.length + 1)}:${index + 1}`] : [])),
  );
  expect(offending).toEqual([]);
});
