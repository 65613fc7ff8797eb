import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";
import type { RecordedRequest } from "./helpers/upstreams.ts";

/**
 * The real Codex CLI (`codex exec`, @openai/codex 0.169.0) headless against a listening gateway, with a
 * model provider on the Responses wire, in front of scripted upstreams that answer with a tool call and
 * then text: Codex runs the tool, sends its output back, and prints the final answer. Update checks,
 * analytics and feedback are off; any traffic other than loopback goes to a dead proxy.
 */

const CODEX = join(import.meta.dir, "..", "node_modules", ".bin", "codex");
const RUN_TIMEOUT_MS = 60_000;

let setup: InferenceSetup;
let scratch: { path: string; remove(): void };

beforeAll(async () => {
  setup = await startInference({
    extra: `  - id: openai/gpt-5.5
    endpoints:
      - provider: local-openai
        model: gpt-upstream
        pricing: { prompt: 1, completion: 2 }
  - id: acme/coder
    endpoints:
      - provider: local-anthropic
        model: claude-upstream
        pricing: { prompt: 1, completion: 2 }
        max_output: 8192
`,
  });
  scratch = tempDir("roundhouse-codex-");
});

afterAll(async () => {
  await setup.stop();
  scratch.remove();
});

beforeEach(() => setup.reset());

/** A CODEX_HOME with a config.toml for `model` at the gateway, and a work directory; returns both. */
function codexHome(name: string, model: string): { home: string; work: string } {
  const home = join(scratch.path, name, "home");
  const work = join(scratch.path, name, "work");
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(
    join(home, "config.toml"),
    `model = "${model}"
model_provider = "roundhouse"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"

[features]
plugins = false

[model_providers.roundhouse]
name = "Roundhouse"
base_url = "${setup.api}"
env_key = "ROUNDHOUSE_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`,
  );
  return { home, work };
}

/** Runs `codex exec <task>`; resolves with its exit code, output and the last message it wrote. */
async function codexExec(dirs: { home: string; work: string }, task: string) {
  const last = join(dirs.home, "last-message.txt");
  const child = Bun.spawn(
    [CODEX, "exec", "--strict-config", "--ephemeral", "--skip-git-repo-check", "-C", dirs.work, "-o", last, task],
    {
      cwd: dirs.work,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: dirs.home,
        CODEX_HOME: dirs.home,
        ROUNDHOUSE_KEY: setup.key,
        // Only loopback: anything else would go to a proxy that does not exist.
        HTTPS_PROXY: "http://127.0.0.1:9",
        HTTP_PROXY: "http://127.0.0.1:9",
        NO_PROXY: "127.0.0.1,localhost",
      },
    },
  );
  const timer = setTimeout(() => child.kill(), RUN_TIMEOUT_MS);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr, last: existsSync(last) ? readFileSync(last, "utf8").trim() : "" };
}

function toolNames(request: RecordedRequest, wire: "openai" | "anthropic"): string[] {
  const tools: Array<Record<string, any>> = request.body.tools ?? [];
  return tools.map((tool) => (wire === "openai" ? tool.function.name : tool.name));
}

describe("Codex CLI through the gateway", () => {
  test("a GPT-family model on the OpenAI chat wire: Codex's freeform apply_patch tool edits a file, then answers", async () => {
    const patch = "*** Begin Patch\n*** Add File: hello.txt\n+hello from the gateway\n*** End Patch\n";
    setup.openai.behave({ toolCall: { name: "apply_patch", arguments: { input: patch } }, text: "Created hello.txt." });
    // Codex names the model as OpenAI does; the catalog's openai/gpt-5.5 answers to that name.
    const dirs = codexHome("openai", "gpt-5.5");
    const run = await codexExec(dirs, "Create hello.txt saying hello from the gateway.");
    expect({ code: run.code, last: run.last }).toEqual({ code: 0, last: "Created hello.txt." });
    expect(readFileSync(join(dirs.work, "hello.txt"), "utf8")).toBe("hello from the gateway\n");

    const [first, second] = setup.openai.requests;
    expect(setup.openai.requests).toHaveLength(2);
    // Codex's custom tool went upstream as a function of one string; its web_search was dropped; the rest are functions.
    const names = toolNames(first!, "openai");
    expect(names).toContain("exec_command");
    expect(names).toContain("apply_patch");
    expect(names).toContain("tool_search");
    expect(names).not.toContain("web_search");
    const applyPatch = first!.body.tools.find((tool: any) => tool.function.name === "apply_patch");
    expect(applyPatch.function.parameters).toMatchObject({ type: "object", required: ["input"], properties: { input: { type: "string" } } });
    // The patch result Codex produced reached the upstream as the answer to the call.
    const messages: Array<Record<string, any>> = second!.body.messages;
    const call = messages.find((message) => message.role === "assistant" && message.tool_calls);
    expect(call?.tool_calls).toEqual([{ id: "call_up_1", type: "function", function: { name: "apply_patch", arguments: JSON.stringify({ input: patch }) } }]);
    const result = messages.find((message) => message.role === "tool");
    expect(result?.tool_call_id).toBe("call_up_1");
    expect(JSON.stringify(result?.content)).toContain("hello.txt");
  }, RUN_TIMEOUT_MS + 5_000);

  test("a non-GPT model on the Anthropic wire: Codex runs a command and the output reaches the upstream", async () => {
    setup.anthropic.behave({ toolCall: { name: "exec_command", arguments: { cmd: "cat note.txt" } }, text: "The note says roundhouse-42." });
    const dirs = codexHome("anthropic", "acme/coder");
    writeFileSync(join(dirs.work, "note.txt"), "roundhouse-42\n");
    const run = await codexExec(dirs, "What does note.txt say?");
    expect({ code: run.code, last: run.last }).toEqual({ code: 0, last: "The note says roundhouse-42." });

    const [first, second] = setup.anthropic.requests;
    expect(setup.anthropic.requests).toHaveLength(2);
    const names = toolNames(first!, "anthropic");
    expect(names).toContain("exec_command");
    // Codex's namespace of sub-agent tools is flattened; its web_search was dropped.
    expect(names.some((name) => name.startsWith("multi_agent_v1__"))).toBe(true);
    expect(names).not.toContain("web_search");
    const blocks = (second!.body.messages as Array<Record<string, any>>).flatMap((message) => (Array.isArray(message.content) ? message.content : []));
    expect(blocks.find((block) => block.type === "tool_use")).toMatchObject({ id: "toolu_up_1", name: "exec_command", input: { cmd: "cat note.txt" } });
    const result = blocks.find((block) => block.type === "tool_result");
    expect(result?.tool_use_id).toBe("toolu_up_1");
    expect(JSON.stringify(result?.content)).toContain("roundhouse-42");
  }, RUN_TIMEOUT_MS + 5_000);
});
