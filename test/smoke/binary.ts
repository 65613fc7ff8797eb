/**
 * Smoke test of the compiled executable (`npm run build` first; `npm run smoke` runs this):
 * copied into an empty directory and started with a PATH that holds no bun or node, it creates its
 * data directory, serves health checks, answers a chat completion from the real openai SDK through the
 * simulated provider and through a configured local upstream, and exits 0 on SIGTERM. Under strace it
 * also proves zero egress (the only connections the gateway opens go to the upstream the config names)
 * and that it is self-contained: it opens no file of the source tree it was built from, which is still
 * on this machine (its records thread once did, and on any other host could not start).
 * Then team mode: two copies of the binary on one real PostgreSQL (its migrations are inlined in the
 * binary) share the keys the first one created. Delivery: `--version` names the commit and build date,
 * dist/SHA256SUMS matches the binary, and a stack trace taken inside the binary names src/ files and lines
 * (the embedded source map).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { TestPostgres } from "../helpers/postgres.ts";

const root = join(import.meta.dir, "..", "..");
const binary = join(root, "dist", "roundhouse");
const results: Array<[string, boolean, string]> = [];

function check(name: string, ok: boolean, detail = ""): void {
  results.push([name, ok, detail]);
  console.log(`${ok ? "ok  " : "FAIL"}  ${name}${detail ? `: ${detail}` : ""}`);
}

function finish(): never {
  const failed = results.filter(([, ok]) => !ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

if (!existsSync(binary)) {
  check("binary exists", false, `${binary} is missing; run npm run build first`);
  finish();
}

const work = mkdtempSync(join(tmpdir(), "roundhouse-smoke-"));
const emptyPath = join(work, "empty-path");
mkdirSync(emptyPath);
copyFileSync(binary, join(work, "roundhouse"));
chmodSync(join(work, "roundhouse"), 0o755);
// An operator's plugin dropped next to the binary, importing the API the binary provides.
mkdirSync(join(work, "plugins"));
writeFileSync(
  join(work, "plugins", "shout.ts"),
  `import { Type, definePlugin } from "roundhouse/plugin";
export default definePlugin({
  apiVersion: 1,
  id: "shout",
  configSchema: Type.Object({}),
  transformResponse(response) {
    return { ...response, output: response.output.map((block) => (block.type === "text" ? { ...block, text: block.text.toUpperCase() } : block)) };
  },
});
`,
);

// An operator's plugin answering with a stack trace taken inside the binary (its hook is called from src/).
writeFileSync(
  join(work, "plugins", "where.ts"),
  `import { Type, definePlugin } from "roundhouse/plugin";
export default definePlugin({
  apiVersion: 1,
  id: "where",
  configSchema: Type.Object({}),
  transformResponse(response) {
    return { ...response, output: [{ type: "text", text: new Error("where").stack ?? "" }] };
  },
});
`,
);

// What the binary says about itself, and the checksum file the build wrote beside it.
const runBinary = (args: string[]) => {
  const run = Bun.spawnSync([join(work, "roundhouse"), ...args], { cwd: work, env: { PATH: emptyPath, HOME: work }, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
};
const version = runBinary(["--version"]);
check(
  "--version names the version, the commit and the build date",
  version.code === 0 && /^roundhouse \d+\.\d+\.\d+ \(commit ([0-9a-f]{12}(-dirty)?|unknown), built \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\n$/.test(version.stdout),
  version.stdout.trim() || version.stderr.trim(),
);
const versionHelp = runBinary(["version", "--help"]);
check("version --help shows its help", versionHelp.code === 0 && versionHelp.stdout.startsWith("Usage: roundhouse version"));
const sums = existsSync(join(root, "dist", "SHA256SUMS")) ? readFileSync(join(root, "dist", "SHA256SUMS"), "utf8") : "";
const digest = createHash("sha256").update(readFileSync(binary)).digest("hex");
check("dist/SHA256SUMS holds the binary's checksum", sums.split("\n").includes(`${digest}  roundhouse`), sums.trim().split("\n")[0]);

// A local OpenAI-compatible upstream: the one address the gateway may connect to.
const upstream = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const body = (await request.json()) as { model: string };
    return Response.json({
      id: "up-1",
      object: "chat.completion",
      created: 1,
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content: "from the upstream" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
    });
  },
});
writeFileSync(
  join(work, "roundhouse.yaml"),
  `providers:
  local: { type: openai-compatible, base_url: http://127.0.0.1:${upstream.port}/v1 }
  sim: { type: simulated, simulation: { ttft_ms: 0, tokens_per_second: 0 } }
models:
  - id: acme/local
    endpoints: [{ provider: local, model: up }]
  - id: roundhouse/simulated
    endpoints: [{ provider: sim }]
  - id: roundhouse/simulated-embedding
    endpoints: [{ provider: sim, operations: [embeddings] }]
  - id: roundhouse/simulated-tts
    endpoints: [{ provider: sim, operations: [speech] }]
  - id: roundhouse/simulated-whisper
    endpoints: [{ provider: sim, operations: [transcription] }]
`,
);

{
  const run = (args: string[]) => Bun.spawnSync([join(work, "roundhouse"), ...args], { cwd: work, env: { PATH: emptyPath, HOME: work } });
  const checked = run(["config", "check", "--config", join(work, "roundhouse.yaml"), "--json"]);
  const verdict = checked.exitCode === 0 ? (JSON.parse(checked.stdout.toString()) as { valid?: boolean; models?: number }) : {};
  const accepted = verdict.valid === true && verdict.models === 5;
  check("config check accepts the smoke config", accepted, accepted ? "" : checked.stdout.toString() + checked.stderr.toString());
  writeFileSync(join(work, "typo.yaml"), "provders: {}\n");
  const typo = run(["config", "check", "--config", join(work, "typo.yaml")]);
  const refused = typo.exitCode === 2 && typo.stderr.toString().includes("did you mean 'providers'?");
  check("config check refuses a typo with exit 2, naming the key", refused, refused ? "" : typo.stderr.toString());
  const schema = run(["config", "schema"]);
  const parsed = schema.exitCode === 0 ? (JSON.parse(schema.stdout.toString()) as { $schema?: string; title?: string }) : {};
  check("config schema prints the JSON Schema", parsed.$schema === "http://json-schema.org/draft-07/schema#" && parsed.title === "Roundhouse configuration");
}

// Port 0: the kernel picks a free port and the start-up line names it (a port picked at random here
// may be in use, and a gateway that cannot listen exits after printing its first keys).
const LISTENING = /listening on (http:\/\/\S+)/;
const strace = Bun.which("strace");
const traceFile = join(work, "trace.txt");
const command = [join(work, "roundhouse"), "serve", "--config", join(work, "roundhouse.yaml"), "--port", "0"];
const child = Bun.spawn(strace ? [strace, "-f", "-qq", "-e", "trace=connect,openat", "-o", traceFile, ...command] : command, {
  cwd: work,
  env: { PATH: emptyPath, HOME: work },
  stdout: "pipe",
  stderr: "pipe",
});

async function readUntil(stream: ReadableStream<Uint8Array>, marker: string, ms: number): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + ms;
  while (!text.includes(marker) && Date.now() < deadline) {
    const next = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => null)]);
    if (!next || next.done) break;
    text += decoder.decode(next.value);
  }
  reader.releaseLock();
  return text;
}

try {
  const output = await readUntil(child.stdout, "API: ", 15_000);
  const listening = LISTENING.exec(output)?.[1];
  check("starts from an empty directory with no bun or node on PATH", listening !== undefined, output.trim().split("\n").at(-1));
  if (listening === undefined) {
    // Why it did not start: what it wrote on stderr, once it has ended.
    const ended = await Promise.race([child.exited.then(() => true), Bun.sleep(2000).then(() => false)]);
    const stderr = ended ? (await new Response(child.stderr).text()).trim() : "(still running)";
    console.log(`the gateway ${ended ? `exited ${child.exitCode ?? child.signalCode}` : "did not exit"}; stderr: ${stderr.split("\n").slice(-15).join("\n  ") || "(empty)"}`);
  }
  const base = listening ?? "http://127.0.0.1:0";
  check("the start-up lines name the dashboard at /", output.includes(`dashboard:  ${base}/\n`));
  check("creates its data directory", existsSync(join(work, "data", "roundhouse.db")) && existsSync(join(work, "data", "master.key")));
  const inferenceKey = /inference key:\s+(\S+)/.exec(output)?.[1] ?? "";
  check("prints the first keys once", inferenceKey.startsWith("sk-rh-v1-"));
  check("/healthz answers", (await fetch(`${base}/healthz`)).status === 200);
  const ready = await fetch(`${base}/readyz`);
  check("/readyz answers", ready.status === 200 || ready.status === 404, String(ready.status));
  const docs = await fetch(`${base}/api/v1/docs`);
  check("serves the API reference page from the binary", docs.status === 200 && !(await docs.text()).includes("<script src="));
  const dashboard = await fetch(`${base}/`);
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(await dashboard.text())?.[1];
  const bundle = script === undefined ? undefined : await fetch(`${base}${script}`);
  check("serves the dashboard embedded in the binary", dashboard.status === 200 && bundle?.status === 200 && (bundle.headers.get("content-type") ?? "").startsWith("text/javascript"));
  const client = new OpenAI({ apiKey: inferenceKey, baseURL: `${base}/api/v1`, maxRetries: 0 });
  const simulated = await client.chat.completions.create({ model: "roundhouse/simulated", messages: [{ role: "user", content: "hello" }] });
  check("a chat completion through the simulated provider with the openai SDK", (simulated.choices[0]?.message.content ?? "").includes("hello"));
  const viaUpstream = await client.chat.completions.create({ model: "acme/local", messages: [{ role: "user", content: "hello" }] });
  check("a chat completion through the configured upstream", viaUpstream.choices[0]?.message.content === "from the upstream");
  const shouted = await client.chat.completions.create({
    model: "acme/local",
    messages: [{ role: "user", content: "hello" }],
    // @ts-expect-error: plugins is an OpenRouter extension of the body
    plugins: [{ id: "shout" }],
  });
  check("an operator plugin next to the binary is loaded and used", shouted.choices[0]?.message.content === "FROM THE UPSTREAM");
  const traced = await client.chat.completions.create({
    model: "roundhouse/simulated",
    messages: [{ role: "user", content: "hello" }],
    // @ts-expect-error: plugins is an OpenRouter extension of the body
    plugins: [{ id: "where" }],
  });
  const stack = traced.choices[0]?.message.content ?? "";
  check("a stack trace inside the binary names src/ files and lines (source map)", /\(src\/[\w/-]+\.ts:\d+:\d+\)/.test(stack), stack.split("\n").slice(1, 3).join(" | ").trim());
  const embedded = await client.embeddings.create({ model: "roundhouse/simulated-embedding", input: ["one", "two"] });
  check("embeddings through the simulated provider", embedded.data.length === 2 && embedded.data[0]!.embedding.length > 0);
  const spoken = await client.audio.speech.create({ model: "roundhouse/simulated-tts", input: "smoke test", voice: "alloy", response_format: "wav" });
  const audio = new File([await spoken.arrayBuffer()], "speech.wav", { type: "audio/wav" });
  const heard = await client.audio.transcriptions.create({ model: "roundhouse/simulated-whisper", file: audio });
  check("speech, then a multipart transcription of it (the upload spooled by the binary)", heard.text === "smoke test", heard.text);
  // Under strace the gateway is strace's child: signal the gateway itself, as an operator would.
  const gatewayPid = strace ? Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/)[0]) : child.pid;
  process.kill(gatewayPid, "SIGTERM");
  const code = await Promise.race([child.exited, Bun.sleep(15_000).then(() => "timeout")]);
  check("exits 0 on SIGTERM", code === 0, String(code));
  // The operator's commands of the same binary, on the data directory it left behind.
  const cli = (...args: string[]) => {
    const ran = Bun.spawnSync([join(work, "roundhouse"), ...args, "--data-dir", join(work, "data")], { cwd: work, env: { PATH: emptyPath, HOME: work } });
    return { code: ran.exitCode, stdout: ran.stdout.toString(), stderr: ran.stderr.toString() };
  };
  const generations = cli("generations", "list", "--model", "acme/local", "--json");
  const listed = generations.code === 0 ? (JSON.parse(generations.stdout) as Array<{ id: string; attempts: unknown[] }>) : [];
  check("generations list --json reads the records of the requests above", listed.length === 2 && listed.every((row) => row.attempts.length === 1), generations.stderr || `${listed.length} record(s)`);
  const shown = listed[0] ? cli("generations", "show", listed[0].id) : undefined;
  check("generations show prints a record with its routing attempts", shown?.code === 0 && shown.stdout.includes("Routing attempts:"), shown?.stderr);
  const usage = cli("usage", "--group-by", "model", "--json");
  const usageRows = usage.code === 0 ? (JSON.parse(usage.stdout) as { rows: Array<{ model: string; requests: number }> }).rows : [];
  check("usage --group-by model sums the requests", usageRows.find((row) => row.model === "acme/local")?.requests === 2, usage.stderr || usage.stdout);
  const workspace = cli("workspaces", "update", "main", "--intern-api-access", "on", "--json");
  check("workspaces update turns the intern programme on", workspace.code === 0 && JSON.parse(workspace.stdout).intern_api_access === true, workspace.stderr);
  const intern = cli("interns", "create", "--name", "Smoke", "--json");
  const secret = Bun.spawnSync([join(work, "roundhouse"), "vault", "secrets", "set", "smoke_token", "--host", "example.com", "--intern", "Smoke", "--data-dir", join(work, "data")], {
    cwd: work,
    env: { PATH: emptyPath, HOME: work },
    stdin: new Blob(["smoke-secret-value\n"]),
  });
  const secrets = cli("vault", "secrets", "list", "--intern", "Smoke");
  check(
    "interns create and vault secrets set (value from stdin, never printed)",
    intern.code === 0 && secret.exitCode === 0 && secrets.stdout.includes("smoke_token") && !`${secret.stdout}${secret.stderr}${secrets.stdout}`.includes("smoke-secret-value"),
    `${intern.stderr}${secret.stderr.toString()}${secrets.stderr}`,
  );
  if (strace && existsSync(traceFile)) {
    const traced = readFileSync(traceFile, "utf8").split("\n");
    const connects = traced.filter((line) => line.includes("connect(") && /AF_INET6?/.test(line));
    const foreign = connects.filter((line) => !line.includes(`sin_port=htons(${upstream.port})`) || !line.includes("127.0.0.1"));
    check("opens no connection except to the configured upstream", foreign.length === 0, foreign.slice(0, 3).join(" | ") || `${connects.length} connection(s), all to 127.0.0.1:${upstream.port}`);
    const opens = traced.filter((line) => line.includes("openat("));
    const fromSource = opens.filter((line) => line.includes(`"${root}/`));
    check("opens no file of the source tree it was built from", opens.length > 0 && fromSource.length === 0, fromSource.slice(0, 3).join(" | ") || `${opens.length} file(s) opened, none under ${root}`);
  } else {
    check("zero egress and no file of the source tree (strace not installed: skipped)", true);
  }
} catch (error) {
  check("smoke run", false, error instanceof Error ? error.message : String(error));
  child.kill("SIGKILL");
}

// A start that fails on the host is one sentence on stderr, without a stack trace, from the binary too.
{
  const blocker = join(work, "not-a-directory");
  writeFileSync(blocker, "");
  const refused = Bun.spawn([join(work, "roundhouse"), "serve", "--config", join(work, "roundhouse.yaml"), "--port", "0", "--data-dir", blocker], {
    cwd: work,
    env: { PATH: emptyPath, HOME: work, ROUNDHOUSE_MASTER_KEY: "c".repeat(64) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(refused.stderr).text(), refused.exited]);
  check("a data_dir that is a file: exit 1 with one sentence", code === 1 && stderr === `roundhouse: data_dir ${blocker} is a file, not a directory\n`, `${code}: ${stderr.trim()}`);
}

// Team mode: two replicas of the binary on one PostgreSQL, started together on an empty database.
let postgres: TestPostgres | undefined;
const replicas: Array<ReturnType<typeof Bun.spawn>> = [];
let failed = false;
try {
  postgres = await TestPostgres.start();
  const databaseUrl = await postgres.createDatabase();
  const started = [0, 1].map((index) => {
    const replica = Bun.spawn([join(work, "roundhouse"), "serve", "--config", join(work, "roundhouse.yaml"), "--port", "0", "--data-dir", join(work, `replica-${index}`)], {
      cwd: work,
      env: { PATH: emptyPath, HOME: work, ROUNDHOUSE_DATABASE_URL: databaseUrl, ROUNDHOUSE_MASTER_KEY: "b".repeat(64) },
      stdout: "pipe",
      stderr: "pipe",
    });
    replicas.push(replica);
    return readUntil(replica.stdout as ReadableStream<Uint8Array>, "listening on", 20_000);
  });
  const outputs = await Promise.all(started);
  failed = !outputs.every((text) => text.includes("listening on"));
  check("two replicas start together on an empty PostgreSQL", !failed, outputs.map((text) => text.trim().split("\n").at(-1)).join(" | "));
  const printed = outputs.map((text) => /inference key:\s+(\S+)/.exec(text)?.[1]).filter(Boolean);
  check("the bootstrap keys are created once", printed.length === 1, `${printed.length} replica(s) printed keys`);
  const answers = await Promise.all(
    outputs.map(async (text) => {
      const client = new OpenAI({ baseURL: `${LISTENING.exec(text)?.[1] ?? "http://127.0.0.1:0"}/api/v1`, apiKey: printed[0] ?? "missing" });
      const answer = await client.chat.completions.create({ model: "roundhouse/simulated", messages: [{ role: "user", content: "say hello" }] });
      return answer.choices[0]?.message.content ?? "";
    }),
  );
  check("the key one replica created answers on both", answers.every((text) => text.includes("hello")), answers.join(" | "));
} catch (error) {
  check("team mode smoke run", false, error instanceof Error ? error.message : String(error));
  failed = true;
} finally {
  for (const replica of replicas) replica.kill("SIGTERM");
  await Promise.all(replicas.map((replica) => replica.exited));
  // A failed run says what each replica wrote on stderr, and how it ended, so a failure can be read.
  if (failed) {
    for (const [index, replica] of replicas.entries()) {
      const stderr = (await new Response(replica.stderr as ReadableStream<Uint8Array>).text()).trim();
      console.log(`replica ${index} exited ${replica.exitCode ?? replica.signalCode}; stderr: ${stderr.split("\n").slice(-15).join("\n  ") || "(empty)"}`);
    }
  }
  await postgres?.stop();
  upstream.stop(true);
  rmSync(work, { recursive: true, force: true });
}
finish();
