/**
 * Profiles the gateway's hot path: runs src/main.ts under Bun's CPU profiler (one process, the binary's
 * re-run skipped), drives it with wrk at 64 connections, stops it and prints the heaviest functions.
 * Usage: bun bench/profile.ts [--seconds 10] [--stream | --embeddings] [--body-bytes N] [--out DIR] — the profiles (.cpuprofile for Chrome
 * DevTools or speedscope, .md for reading) stay in bench/results/profile/ (not committed).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { installGuards, stopAll } from "./lib/proc.ts";
import { chatBody, embeddingsBody, GATEWAY_HEADERS, MODELS, startGateway, startUpstream } from "./lib/targets.ts";
import { ensureWrk, runWrk } from "./lib/wrk.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { out: { type: "string" }, "body-bytes": { type: "string" }, seconds: { type: "string", default: "10" }, stream: { type: "boolean", default: false }, embeddings: { type: "boolean", default: false }, top: { type: "string", default: "40" } },
});
const seconds = Number(values.seconds);
const dir = values.out ?? join(import.meta.dir, "results", "profile");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
installGuards((seconds + 120) * 1000);

try {
  const wrk = await ensureWrk();
  const upstream = await startUpstream();
  const gateway = await startGateway({ upstreamUrl: upstream.url, profileDir: dir });
  const load = values.embeddings
    ? { url: `${gateway.url}/api/v1/embeddings`, bodies: [embeddingsBody(MODELS.embed)], headers: GATEWAY_HEADERS }
    : { url: `${gateway.url}/api/v1/chat/completions`, bodies: [chatBody(values.stream ? MODELS.stream : MODELS.fast, { stream: values.stream, includeUsage: values.stream, ...(values["body-bytes"] ? { contentBytes: Number(values["body-bytes"]) } : {}) })], headers: GATEWAY_HEADERS };
  await runWrk(wrk, load, 16, 2, 1);
  const result = await runWrk(wrk, load, 64, seconds, 1);
  console.log(`profiled ${result.requests} requests (${result.rps} req/s, p50 ${result.p50Us} µs, ${result.errors} errors)`);
  await gateway.stop();
  await stopAll();
  const markdown = readdirSync(dir).find((name) => name.endsWith(".md"));
  if (!markdown) throw new Error(`no profile was written to ${dir}`);
  const lines = readFileSync(join(dir, markdown), "utf8").split("\n");
  console.log(lines.slice(0, Number(values.top) + 20).join("\n"));
  console.log(`\nprofiles in ${dir}: ${readdirSync(dir).join(", ")}`);
} catch (error) {
  console.error(`profile: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}
