/**
 * The floor: the least a Bun gateway can do. It forwards each request's method, path, headers and
 * body to the upstream and pipes the answer back (streams included), with no auth, no parsing and no
 * accounting. A multipart upload is piped through as it arrives (never held whole); other bodies are
 * read whole first. Usage: bun bench/floor.ts --upstream http://127.0.0.1:PORT [--port 0]
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({ args: process.argv.slice(2), options: { upstream: { type: "string" }, port: { type: "string", default: "0" } } });
if (!values.upstream) throw new Error("--upstream URL is required");
const upstream = values.upstream.replace(/\/$/, "");
const MULTIPART = /^\s*multipart\/form-data/i;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(values.port),
  idleTimeout: 255,
  async fetch(request) {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.delete("host");
    const bodiless = request.method === "GET" || request.method === "HEAD";
    const answer = await fetch(upstream + url.pathname + url.search, {
      method: request.method,
      headers,
      body: bodiless ? null : MULTIPART.test(headers.get("content-type") ?? "") ? request.body : await request.arrayBuffer(),
      signal: request.signal,
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  },
});

console.log(`floor listening on ${server.port}`);
process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
