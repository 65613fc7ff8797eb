import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tempDir } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";
import type { ScriptedTurn, Upstream } from "./helpers/upstreams.ts";

/**
 * The real Claude Code CLI (`claude -p`, the pinned devDependency) headless against a listening gateway,
 * with catalog models whose names Claude Code does not know, in front of a scripted upstream on each
 * wire: it reads a file, runs a command, then answers. Only loopback traffic is allowed: every other
 * request would go through a recording proxy that refuses it.
 */

const CLAUDE = resolve(import.meta.dir, "../node_modules/.bin/claude");
/** A run that takes longer has hung: the CLI is killed and the test fails. */
const RUN_TIMEOUT_MS = 60_000;
const FILE_TEXT = "The launch code is heron-42.";

let setup: InferenceSetup;
let proxy: ReturnType<typeof Bun.serve>;
const proxied: string[] = [];
const work = tempDir("roundhouse-claude-code-");

beforeAll(async () => {
  setup = await startInference({
    extra: `  - id: acme/coder-chat
    endpoints:
      - provider: local-openai
        model: coder-upstream
        pricing: { prompt: 1, completion: 2 }
        supported_parameters: [tools, tool_choice, max_tokens, temperature, reasoning]
  - id: acme/coder-messages
    endpoints:
      - provider: local-anthropic
        model: coder-upstream
        pricing: { prompt: 1, completion: 2 }
        max_output: 64000
`,
  });
  // Anything that is not loopback goes to this proxy (HTTPS_PROXY / HTTP_PROXY) and is refused.
  proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      proxied.push(`${request.method} ${request.url}`);
      return new Response("no network in tests", { status: 403 });
    },
  });
});

beforeAll(() => mkdirSync(join(work.path, "tmp"), { recursive: true }));

afterAll(async () => {
  proxy.stop(true);
  await setup.stop();
  work.remove();
});

/** How many tool results the conversation carries, on either wire. */
function toolResults(body: Record<string, any>): string[] {
  const results: string[] = [];
  for (const message of body.messages ?? []) {
    if (message.role === "tool") results.push(typeof message.content === "string" ? message.content : JSON.stringify(message.content));
    if (Array.isArray(message.content)) {
      for (const block of message.content) if (block.type === "tool_result") results.push(JSON.stringify(block.content));
    }
  }
  return results;
}

/** Read the file, then run a command, then answer with what both gave. */
function agentScript(file: string) {
  return (body: Record<string, any>): ScriptedTurn => {
    const results = toolResults(body);
    const offersTools = Array.isArray(body.tools) && body.tools.length > 0;
    if (!offersTools) return { text: "ok" };
    if (results.length === 0) return { tool: { name: "Read", input: { file_path: file } } };
    if (results.length === 1) return { tool: { name: "Bash", input: { command: "echo bash-says-$((6*7))", description: "Print a number" } } };
    const code = /heron-\d+/.exec(results[0]!)?.[0] ?? "nothing";
    const printed = /bash-says-\d+/.exec(results[1]!)?.[0] ?? "nothing";
    return { text: `Final answer: ${code} and ${printed}` };
  };
}

const TASK = "Read notes.txt, then run a shell command, then tell me the code.";

async function runClaude(model: string, cwd: string, home: string, prompt = TASK): Promise<{ code: number | null; events: any[]; stderr: string }> {
  const child = Bun.spawn(
    [CLAUDE, "-p", prompt, "--model", model, "--output-format", "stream-json", "--verbose", "--allowedTools", "Read", "Bash"],
    {
      cwd,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        ANTHROPIC_BASE_URL: `${setup.gateway.url}/api`,
        ANTHROPIC_API_KEY: setup.key,
        // Side requests (titles, summaries) use the "small fast" model: the same catalog model.
        ANTHROPIC_SMALL_FAST_MODEL: model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        DISABLE_AUTOUPDATER: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        // Claude Code's own temporary files (per-project scratch, its socket) stay in the test's directory.
        CLAUDE_CODE_TMPDIR: join(work.path, "tmp"),
        TMPDIR: join(work.path, "tmp"),
        HTTPS_PROXY: proxy.url.href,
        HTTP_PROXY: proxy.url.href,
        NO_PROXY: "127.0.0.1,localhost",
      },
    },
  );
  const timer = setTimeout(() => child.kill(), RUN_TIMEOUT_MS);
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  const code = await child.exited;
  clearTimeout(timer);
  const events = stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
  return { code, events, stderr };
}

function workDir(name: string): { cwd: string; home: string } {
  const cwd = join(work.path, name);
  const home = join(cwd, "home");
  mkdirSync(home, { recursive: true });
  return { cwd, home };
}

async function agentLoop(model: string, upstream: Upstream) {
  const { cwd, home } = workDir(model.replace("/", "-"));
  const file = join(cwd, "notes.txt");
  writeFileSync(file, `${FILE_TEXT}\n`);
  setup.reset();
  upstream.behave({ script: agentScript(file), reasoning: "Thinking about the task." });
  const before = upstream.requests.length;
  const run = await runClaude(model, cwd, home);
  const requests = upstream.requests.slice(before);
  return { ...run, requests };
}

describe("Claude Code through the gateway", () => {
  for (const [wire, model, upstreamOf] of [
    ["OpenAI chat", "acme/coder-chat", () => setup.openai],
    ["Anthropic messages", "acme/coder-messages", () => setup.anthropic],
  ] as const) {
    test(
      `a Read, Bash, answer loop on a non-Claude model over the ${wire} wire`,
      async () => {
        const { code, events, stderr, requests } = await agentLoop(model, upstreamOf());
        const result = events.find((event) => event.type === "result");
        expect({ code, result: result?.result, error: result?.is_error }, stderr).toEqual({
          code: 0,
          result: "Final answer: heron-42 and bash-says-42",
          error: false,
        });
        // The tool results reached the upstream: the file's text and the command's output.
        const last = requests.filter((request) => Array.isArray(request.body.tools)).at(-1)!;
        const results = toolResults(last.body);
        expect(results[0]).toContain("heron-42");
        expect(results[1]).toContain("bash-says-42");
        // Every turn streamed, and Claude Code's mid-conversation system turn reached the upstream.
        expect(requests.every((request) => request.body.stream === true)).toBe(true);
        expect(JSON.stringify(last.body)).toContain("Primary working directory");
        // Thinking: Claude Code asks for adaptive thinking at effort high; each wire gets it in its own terms.
        if (wire === "OpenAI chat") {
          expect(requests.map((request) => request.body.reasoning_effort)).toEqual(requests.map(() => "high"));
        } else {
          expect(requests.every((request) => request.body.thinking?.budget_tokens === 16384)).toBe(true);
          expect(JSON.stringify(last.body.messages)).toContain('"signature":"sig-up-1"');
          expect(last.headers["anthropic-beta"]).toContain("claude-code-20250219");
          expect(last.body.context_management).toEqual({ edits: [{ type: "clear_thinking_20251015", keep: "all" }] });
        }
        const blocks = events.filter((event) => event.type === "assistant").flatMap((event) => event.message.content);
        expect(blocks.some((block: any) => block.type === "thinking" && block.thinking === "Thinking about the task.")).toBe(true);
        // Claude Code's session header is the session of the generation records.
        const session = events.find((event) => event.type === "system" && event.subtype === "init")?.session_id;
        const generation = await setup.generation(events.find((event) => event.type === "assistant").message.id);
        expect(generation.session_id).toBe(session);
        expect(proxied).toEqual([]);
      },
      RUN_TIMEOUT_MS + 10_000,
    );

    test(
      `/context counts tokens through the gateway over the ${wire} wire`,
      async () => {
        const { cwd, home } = workDir(`${model.replace("/", "-")}-context`);
        setup.reset();
        const upstream = upstreamOf();
        const before = upstream.requests.length;
        const logged = setup.gateway.lines.length;
        const { code, events, stderr } = await runClaude(model, cwd, home, "/context");
        const result = events.find((event) => event.type === "result");
        expect({ code, error: result?.is_error }, stderr).toEqual({ code: 0, error: false });
        // Claude Code asked the gateway's count_tokens, and every ask was answered.
        const answered = setup.gateway.lines
          .slice(logged)
          .map((line) => JSON.parse(line))
          .filter((line) => line.message === "request" && line.route === "/api/v1/messages/count_tokens");
        expect(answered.length).toBeGreaterThan(0);
        expect(answered.map((line) => [line.status, line.model])).toEqual(answered.map(() => [200, model]));
        const counts = upstream.requests.slice(before).filter((request) => request.path === "/v1/messages/count_tokens");
        // The Anthropic wire asks the upstream; the OpenAI wire has no count and gets the estimate.
        if (wire === "OpenAI chat") expect(counts).toEqual([]);
        else {
          expect(counts.length).toBeGreaterThan(0);
          expect(counts.every((request) => request.headers["anthropic-beta"]?.includes("token-counting-2024-11-01"))).toBe(true);
        }
        expect(JSON.stringify(result)).toContain("token");
        expect(proxied).toEqual([]);
      },
      RUN_TIMEOUT_MS + 10_000,
    );
  }
});
