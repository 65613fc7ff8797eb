/**
 * The layer rule of DESIGN.md, checked on every import of `src/` and `plugins/` (type-only imports
 * included: a type that climbs a layer is a dependency too):
 *
 *   api → pipeline → {plugins, routing, providers, transport} → core;  storage → core;
 *   ops (metrics, lifecycle) is used by the top layers only; nothing imports api; the browser
 *   dashboard (src/dashboard, TSX) imports no server layer and is the only home of preact.
 *
 * plus: no `elysia` outside the edge (api/ and app.ts), no `drizzle-orm` or `bun:sqlite` outside
 * storage, built-in plugins import only the public plugin API, and source files stay under 400 lines.
 *
 * The scanner; the rules are checked by test/architecture.test.ts against the allow-list of today's
 * violations in test/architecture-allowed.ts.
 */
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
export const MAX_LINES = 400;

/** Folders of src/ by layer. Today's folder names map onto the target layers (db/ is storage). */
const LAYER_OF_FOLDER: Record<string, string> = {
  core: "core",
  config: "config",
  security: "security",
  db: "storage",
  storage: "storage",
  transport: "transport",
  providers: "providers",
  routing: "routing",
  plugins: "plugins",
  pipeline: "pipeline",
  ops: "ops",
  api: "api",
  cli: "cli",
  dashboard: "dashboard",
};

/** Which layers each layer may import (besides itself). The entry files at src/ may import anything. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  config: ["core"],
  security: ["core"],
  storage: ["core"],
  transport: ["core"],
  providers: ["core", "transport"],
  routing: ["core"],
  plugins: ["core"],
  pipeline: ["core", "security", "transport", "providers", "routing", "plugins"],
  ops: ["core"],
  api: ["core", "config", "security", "storage", "transport", "providers", "routing", "plugins", "pipeline", "ops"],
  cli: ["core", "config", "security", "storage", "transport", "providers", "routing", "plugins", "pipeline", "ops", "entry"],
  // The browser app: its own world, talking to the gateway only over HTTP.
  dashboard: [],
  entry: ["core", "config", "security", "storage", "transport", "providers", "routing", "plugins", "pipeline", "ops", "api", "cli", "entry"],
};

/** Packages only one place may import. */
const PACKAGE_HOMES: Array<{ pattern: RegExp; layers: readonly string[]; entryFiles?: readonly string[] }> = [
  { pattern: /^elysia$|^@elysiajs\//, layers: ["api"], entryFiles: ["src/app.ts"] },
  { pattern: /^drizzle-orm(\/|$)|^bun:sqlite$/, layers: ["storage"] },
  { pattern: /^preact(\/|$)/, layers: ["dashboard"] },
];

/** The one module built-in plugins may import from the gateway. */
const PLUGIN_API = "src/plugins/api.ts";

export interface SourceFile {
  path: string;
  text: string;
}

export function sourceFiles(): SourceFile[] {
  const files: SourceFile[] = [];
  for (const root of ["src", "plugins"]) {
    for (const file of new Glob("**/*.{ts,tsx}").scanSync(join(ROOT, root))) {
      if (file.endsWith(".test.ts") || file.endsWith(".d.ts")) continue;
      const path = `${root}/${file}`;
      files.push({ path, text: readFileSync(join(ROOT, path), "utf8") });
    }
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** Every module specifier a file imports or re-exports, statically or with import(). */
export function specifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:^|[;\s])(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/g)) found.add(match[1]!);
  for (const match of code.matchAll(/(?:^|[;\s])import\s*["']([^"']+)["']/g)) found.add(match[1]!);
  for (const match of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.add(match[1]!);
  return [...found];
}

/** The layer of a file: its folder under src/, `entry` for files directly in src/, `builtin-plugin` under plugins/. */
export function layerOf(path: string): string | undefined {
  if (path.startsWith("plugins/")) return "builtin-plugin";
  const parts = path.split("/");
  if (parts[0] !== "src") return undefined;
  if (parts.length === 2) return "entry";
  return LAYER_OF_FOLDER[parts[1]!];
}

export interface Violations {
  imports: string[];
  packages: string[];
  longFiles: Array<{ path: string; lines: number }>;
}

export function findViolations(files: SourceFile[]): Violations {
  const imports: string[] = [];
  const packages: string[] = [];
  const longFiles: Array<{ path: string; lines: number }> = [];
  for (const file of files) {
    const layer = layerOf(file.path);
    const lines = file.text.split("\n").length - (file.text.endsWith("\n") ? 1 : 0);
    if (lines > MAX_LINES) longFiles.push({ path: file.path, lines });
    for (const specifier of specifiers(file.text)) {
      if (specifier.startsWith(".")) {
        const target = relative(ROOT, resolve(ROOT, dirname(file.path), specifier));
        if (!target.startsWith("src/") && !target.startsWith("plugins/")) continue;
        const targetLayer = layerOf(target);
        if (layer === "builtin-plugin") {
          if (target.startsWith("src/") && target !== PLUGIN_API) imports.push(`${file.path} -> ${target}`);
          continue;
        }
        if (targetLayer === undefined || targetLayer === layer || targetLayer === "builtin-plugin") continue;
        if (layer === undefined || !(MAY_IMPORT[layer] ?? []).includes(targetLayer)) imports.push(`${file.path} -> ${target}`);
        continue;
      }
      for (const home of PACKAGE_HOMES) {
        if (!home.pattern.test(specifier)) continue;
        const allowed = (layer !== undefined && home.layers.includes(layer)) || (home.entryFiles ?? []).includes(file.path);
        if (!allowed) packages.push(`${file.path} -> ${specifier}`);
      }
    }
  }
  return { imports, packages, longFiles };
}


/**
 * Import cycles between files (type-only imports included), each as its files sorted and joined with
 * " <-> ": the strongly connected components of more than one file.
 */
export function findCycles(files: SourceFile[]): string[] {
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets = specifiers(file.text)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => relative(ROOT, resolve(ROOT, dirname(file.path), specifier)));
    edges.set(file.path, targets);
  }
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of edges.get(node) ?? []) {
      if (!edges.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort().join(" <-> "));
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles.sort();
}
