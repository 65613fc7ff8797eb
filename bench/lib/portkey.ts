/**
 * Portkey's open-source AI gateway on Bun, the comparison issue 20 names ("requests per second ≥ 4×
 * Portkey on Bun"). It is not a dependency of the project: the bench installs one pinned version from the
 * npm registry into bench/.cache/ the first time it is needed (its install scripts not run), and runs its
 * published server, `build/start-server.js`, under the same Bun as the floor. Without the registry it is
 * left out, and the check says why.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../test/helpers/free-port.ts";
import { type Started, start } from "./proc.ts";
import { ROOT } from "./targets.ts";

export const PORTKEY_PACKAGE = "@portkey-ai/gateway";
export const PORTKEY_VERSION = "1.15.2";
const DIR = join(ROOT, "bench", ".cache", `portkey-${PORTKEY_VERSION}`);
const ENTRY = join(DIR, "node_modules", "@portkey-ai", "gateway", "build", "start-server.js");
const BUN = process.execPath;

/** Where Portkey's server is, installing it first when missing; a reason when it cannot be had. */
export async function ensurePortkey(): Promise<{ entry: string } | { unavailable: string }> {
  if (existsSync(ENTRY)) return { entry: ENTRY };
  const npm = Bun.which("npm");
  if (!npm) return { unavailable: "npm is not on PATH to install it" };
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, "package.json"), `${JSON.stringify({ private: true, dependencies: { [PORTKEY_PACKAGE]: PORTKEY_VERSION } }, null, 2)}\n`);
  console.log(`installing ${PORTKEY_PACKAGE}@${PORTKEY_VERSION} into ${DIR.slice(ROOT.length + 1)} for the comparison ...`);
  const child = Bun.spawn([npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: DIR, stdout: "ignore", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
  const code = await child.exited;
  clearTimeout(timer);
  if (code !== 0 || !existsSync(ENTRY)) {
    const detail = (await new Response(child.stderr).text()).trim().split("\n").slice(-2).join(" | ");
    return { unavailable: `npm could not install ${PORTKEY_PACKAGE}@${PORTKEY_VERSION} (exit ${code}${detail ? `: ${detail}` : ""})` };
  }
  return { entry: ENTRY };
}

/** Starts Portkey's server on core 0 (where the floor and the gateway run), without its log page. */
export async function startPortkey(entry: string): Promise<Started & { url: string }> {
  const port = await freePort();
  const started = await start("portkey", [BUN, entry, "--headless", `--port=${port}`], {
    core: 0,
    // As the floor and the gateway: no cap of 256 upstream requests at once.
    env: { NODE_ENV: "production", BUN_CONFIG_MAX_HTTP_REQUESTS: "65336" },
    ready: /Ready for connections/,
  });
  return { ...started, url: `http://127.0.0.1:${port}` };
}

/**
 * Headers that send a request through Portkey to the bench upstream: its `openai` provider with the
 * upstream as custom host (loopback is on its list of trusted hosts), the key passed on as the upstream's.
 */
export function portkeyHeaders(upstreamBase: string): Record<string, string> {
  return {
    "Content-Type": "application/json",
    Authorization: "Bearer bench",
    "x-portkey-provider": "openai",
    "x-portkey-custom-host": upstreamBase,
  };
}
