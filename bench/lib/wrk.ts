/**
 * The load generator: wrk from Debian's packages (installed on first use), driven by a Lua script that
 * sets the POST body and headers (rotating API keys or alternating bodies when asked) and prints its
 * summary as one JSON line from `done()`, with latency percentiles in microseconds (p99.9 included).
 * wrk reads each answer to its end, so a streamed (SSE) answer is timed whole; given an end marker, the
 * script also counts the 2xx answers whose body does not end with it (streams cut short).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Core, onCleanup, pinned, runTracked } from "./proc.ts";

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  p999Us: number;
  maxUs: number;
  /** Connect, read, write and timeout errors, non-2xx answers, and incomplete streams. */
  errors: number;
  non2xx: number;
  /** 2xx answers without the load's end marker near their end (0 when the load has none). */
  incomplete: number;
}

export interface LoadSpec {
  url: string;
  /** Request bodies; more than one alternates between them. */
  bodies: string[];
  headers: Record<string, string>;
  /** Bearer keys to rotate through (one per request); empty: the headers as given. */
  keys?: string[];
  /** A streamed answer is complete when this appears in its last bytes (`[DONE]`); unset: not checked. */
  endMarker?: string;
}

const work = mkdtempSync(join(tmpdir(), "roundhouse-bench-wrk-"));
onCleanup(() => rmSync(work, { recursive: true, force: true }));
let scripts = 0;

/** Finds wrk, or installs it from Debian's packages (apt-get update first); fails with a clear message. */
export function ensureWrk(): Promise<string> {
  return ensureDebianTool("wrk", "wrk");
}

/**
 * Finds a command on PATH, or installs the Debian package that has it (apt-get update first); fails
 * with a clear message when it cannot.
 */
export async function ensureDebianTool(command: string, debianPackage: string): Promise<string> {
  const found = Bun.which(command);
  if (found) return found;
  if (!Bun.which("apt-get")) throw new Error(`${command} is not installed and apt-get is not available: install ${command} (Debian package \`${debianPackage}\`) and run again`);
  console.log(`${command} not found: installing it with apt-get (apt-get update && apt-get install -y ${debianPackage}) ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const step of [["apt-get", "update"], ["apt-get", "install", "-y", debianPackage]]) {
    const child = Bun.spawn(step, { env, stdout: "ignore", stderr: "pipe" });
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    const code = await child.exited;
    clearTimeout(timer);
    if (code !== 0) {
      const detail = (await new Response(child.stderr).text()).trim().split("\n").slice(-3).join(" | ");
      throw new Error(`could not install ${command} (${step.join(" ")} exited ${code}: ${detail}); install the Debian package ${debianPackage} by hand and run again`);
    }
  }
  const installed = Bun.which(command);
  if (!installed) throw new Error(`apt-get installed ${debianPackage} but ${command} is not on PATH; install it by hand and run again`);
  return installed;
}

function luaString(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

/** Writes the Lua script for a load: bodies and keys live in files next to it. */
function writeScript(spec: LoadSpec): string {
  const id = (scripts += 1);
  const bodyFiles = spec.bodies.map((body, index) => {
    const file = join(work, `body-${id}-${index}.json`);
    writeFileSync(file, body);
    return file;
  });
  const keysFile = join(work, `keys-${id}.txt`);
  if (spec.keys?.length) writeFileSync(keysFile, `${spec.keys.join("\n")}\n`);
  const headerLines = Object.entries(spec.headers).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  const lua = [
    'wrk.method = "POST"',
    ...headerLines,
    "local bodies = {}",
    ...bodyFiles.map((file) => `do local f = assert(io.open(${luaString(file)}, "rb")); bodies[#bodies + 1] = f:read("*a"); f:close() end`),
    "wrk.body = bodies[1]",
    "local keys = {}",
    spec.keys?.length ? `for line in io.lines(${luaString(keysFile)}) do if #line > 0 then keys[#keys + 1] = line end end` : "",
    "local n = 0",
    "if #keys > 0 or #bodies > 1 then",
    "  request = function()",
    "    n = n + 1",
    "    local headers = nil",
    "    if #keys > 0 then",
    "      headers = {}",
    "      for name, value in pairs(wrk.headers) do headers[name] = value end",
    '      headers["Authorization"] = "Bearer " .. keys[(n % #keys) + 1]',
    "    end",
    "    return wrk.format(nil, nil, headers, bodies[(n % #bodies) + 1])",
    "  end",
    "end",
    // Counted in each thread's own Lua state; done() (in the main state) sums them through setup()'s handles.
    "incomplete = 0",
    ...(spec.endMarker
      ? [
          `local marker = ${luaString(spec.endMarker)}`,
          "response = function(status, headers, body)",
          "  if status >= 200 and status < 300 and not string.find(body, marker, math.max(1, #body - #marker - 64), true) then",
          "    incomplete = incomplete + 1",
          "  end",
          "end",
        ]
      : []),
    "local threads = {}",
    "setup = function(thread) threads[#threads + 1] = thread end",
    "done = function(summary, latency, requests)",
    "  local e = summary.errors",
    "  local cut = 0",
    "  for _, thread in ipairs(threads) do cut = cut + (thread:get(\"incomplete\") or 0) end",
    '  io.write(string.format("WRK_JSON {\\"requests\\":%d,\\"duration_us\\":%d,\\"p50\\":%d,\\"p90\\":%d,\\"p99\\":%d,\\"p999\\":%d,\\"max\\":%d,\\"connect\\":%d,\\"read\\":%d,\\"write\\":%d,\\"status\\":%d,\\"timeout\\":%d,\\"incomplete\\":%d}\\n",',
    "    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max,",
    "    e.connect, e.read, e.write, e.status, e.timeout, cut))",
    "end",
  ];
  const file = join(work, `script-${id}.lua`);
  writeFileSync(file, lua.join("\n"));
  return file;
}

/** Runs wrk for `seconds` at `connections`, on `core`; killed if it outlives its run by 20 s. */
export async function runWrk(wrk: string, spec: LoadSpec, connections: number, seconds: number, core: Core): Promise<WrkResult> {
  const script = writeScript(spec);
  const command = [wrk, "-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "--timeout", "10s", "-s", script, spec.url];
  const { stdout, stderr, code } = await runTracked(pinned(command, core), {}, (seconds + 20) * 1000);
  const line = /WRK_JSON (\{.*\})/.exec(stdout);
  if (!line) throw new Error(`wrk gave no summary (exit ${code}): ${(stdout + stderr).trim().slice(-1000)}`);
  const raw = JSON.parse(line[1]!) as Record<string, number>;
  const secondsRun = raw.duration_us! / 1_000_000;
  const non2xx = raw.status!;
  const incomplete = raw.incomplete!;
  return {
    requests: raw.requests!,
    seconds: secondsRun,
    rps: Math.round(raw.requests! / secondsRun),
    p50Us: raw.p50!,
    p90Us: raw.p90!,
    p99Us: raw.p99!,
    p999Us: raw.p999!,
    maxUs: raw.max!,
    errors: raw.connect! + raw.read! + raw.write! + raw.timeout! + non2xx + incomplete,
    non2xx,
    incomplete,
  };
}
