/**
 * The dashboard's bundle: src/dashboard/ built with Bun's bundler (minified, hashed asset names). A
 * compiled binary carries it prebuilt (build.ts embeds it); from source it is built in memory once,
 * on first use, and never written to disk.
 */
import { join } from "node:path";

/** One file of the bundle: its URL path (`/index.html`, `/assets/main-<hash>.js`), content type and bytes. */
export interface DashboardFile {
  path: string;
  type: string;
  body: string;
}

const ENTRY = join(import.meta.dir, "..", "dashboard", "index.html");

/** Builds the dashboard from source: the HTML page and its hashed scripts and styles. */
export async function buildDashboard(): Promise<DashboardFile[]> {
  const result = await Bun.build({
    entrypoints: [ENTRY],
    minify: true,
    publicPath: "/",
    target: "browser",
    jsx: { runtime: "automatic", importSource: "preact" },
    define: { "process.env.NODE_ENV": '"production"' },
    naming: { entry: "[name].[ext]", chunk: "assets/[name]-[hash].[ext]", asset: "assets/[name]-[hash].[ext]" },
  });
  if (!result.success) throw new AggregateError(result.logs, "the dashboard bundle failed to build");
  return Promise.all(
    result.outputs.map(async (output) => ({ path: output.path.replace(/^\.\//, "/"), type: output.type, body: await output.text() })),
  );
}

let files: Promise<Map<string, DashboardFile>> | undefined;

/** The bundle by URL path: the embedded one in a compiled binary, else built once (a failed build is retried). */
export function dashboardFiles(): Promise<Map<string, DashboardFile>> {
  const embedded = (globalThis as { __roundhouseDashboard?: DashboardFile[] }).__roundhouseDashboard;
  files ??= (embedded ? Promise.resolve(embedded) : buildDashboard()).then((list) => new Map(list.map((file) => [file.path, file])));
  files.catch(() => (files = undefined));
  return files;
}
