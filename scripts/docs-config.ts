/** Writes docs/configuration.md from the config schema: `npm run docs:config`. */
import { join } from "node:path";
import { configurationReference } from "../src/config/reference.ts";

const target = join(import.meta.dir, "..", "docs", "configuration.md");
await Bun.write(target, configurationReference());
console.log(`wrote ${target}`);
