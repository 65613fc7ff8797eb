import { expect, test } from "bun:test";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { compiledModuleUrl, isCompiledBinary } from "./compiled.ts";

test("from source this is no compiled binary, and a compiled-in module is looked for beside the main module, by its path from the root", () => {
  expect(isCompiledBinary()).toBe(false);
  const url = compiledModuleUrl("src/db/generation-thread.ts");
  expect(fileURLToPath(url)).toBe(`${dirname(Bun.main)}/src/db/generation-thread.ts`);
});
