import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./targets.ts";

/**
 * Rewrites what README.md holds between `<!-- <name>:start -->` and `<!-- <name>:end -->` (a bench's
 * generated block); false, and the README left as it is, when the markers are missing.
 */
export function updateReadmeBlock(name: string, block: string, file = join(ROOT, "README.md")): boolean {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const text = readFileSync(file, "utf8");
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) return false;
  writeFileSync(file, `${text.slice(0, from + start.length)}\n${block}${text.slice(to)}`);
  return true;
}
