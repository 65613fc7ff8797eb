import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@cfworker/json-schema";
import { parse as parseYaml } from "yaml";
import { configurationReference } from "../src/config/reference.ts";
import { MASTER_KEY, tempDir } from "./helpers/gateway.ts";

/** `roundhouse config check | schema`, and `serve` refusing the same files, over the CLI entry. */
const ROOT = join(import.meta.dir, "..");
const MAIN = join(ROOT, "src", "main.ts");
const root = tempDir("roundhouse-config-cli-");
afterAll(() => root.remove());
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ROUNDHOUSE_")));
let files = 0;

function write(text: string): string {
  const path = join(root.path, `config-${++files}.yaml`);
  Bun.write(path, text);
  return path;
}

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, MAIN, ...args], {
    env: { ...baseEnv, ROUNDHOUSE_MASTER_KEY: MASTER_KEY, ...env },
    stdout: "pipe",
    stderr: "pipe",
    cwd: root.path,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

const GOOD = `# yaml-language-server: $schema=./roundhouse.schema.json
server:
  port: 9090
log:
  level: warn
providers:
  ollama:
    type: openai-compatible
    base_url: http://127.0.0.1:11434/v1
models:
  - id: llama3.1:8b
    endpoints:
      - provider: ollama
  - id: acme/chat
    endpoints:
      - provider: ollama
        model: qwen2.5:7b
        pricing: { prompt: 0.1, completion: 0.2 }
`;

const BAD = `provders: {}
server:
  prot: 80
log:
  level: loud
providers:
  ollama:
    type: openai-compatible
    base_url: http://127.0.0.1:11434/v1
models:
  - id: llama3.1:8b
    endpoints:
      - provider: olama
`;

const BAD_PROBLEMS = [
  "provders: unknown key 'provders' — did you mean 'providers'?",
  "server.prot: unknown key 'prot' — did you mean 'port'?",
  'log.level must be one of debug, info, warn, error, silent (got "loud")',
];

describe("config check", () => {
  test("a valid file: exit 0 with a summary; --json says valid with the counts", async () => {
    const path = write(GOOD);
    const text = await run(["config", "check", "--config", path]);
    expect(text).toEqual({ code: 0, stdout: `${path} is valid: 1 provider(s), 2 model(s)\n`, stderr: "" });
    const json = await run(["config", "check", "--config", path, "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ valid: true, source: path, providers: 1, models: 2 });
    const defaults = await run(["config", "check", "--json"]);
    expect(JSON.parse(defaults.stdout)).toMatchObject({ valid: true, source: "embedded defaults" });
  });

  test("an invalid file: exit 2 and every problem, each naming its key; serve refuses it at start with the same lines", async () => {
    const path = write(BAD);
    const text = await run(["config", "check", "--config", path]);
    expect(text.code).toBe(2);
    expect(text.stdout).toBe("");
    expect(text.stderr).toBe(`roundhouse: ${path} is invalid (3 problems):\n  ${BAD_PROBLEMS.join("\n  ")}\n`);
    const json = await run(["config", "check", "--config", path, "--json"]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ valid: false, source: path, errors: BAD_PROBLEMS });
    const serve = await run(["serve", "--config", path, "--port", "0", "--data-dir", join(root.path, "data")]);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain(`invalid configuration (${path}):\n  ${BAD_PROBLEMS.join("\n  ")}`);
  });

  test("what serve checks after the schema is checked too: endpoints' providers, and plugin settings", async () => {
    const references = write(BAD.replace(/^provders: \{\}\n/m, "").replace("  prot: 80", "  port: 80").replace("level: loud", "level: info"));
    const json = await run(["config", "check", "--config", references, "--json"]);
    expect({ code: json.code, body: JSON.parse(json.stdout) }).toEqual({
      code: 2,
      body: { valid: false, source: references, errors: [`models[0].endpoints[0].provider: unknown provider "olama" (declared: ollama) — did you mean 'ollama'?`] },
    });
    const serve = await run(["serve", "--config", references, "--port", "0", "--data-dir", join(root.path, "data")]);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain(`unknown provider "olama"`);
    // A plugin's settings error names the key, the expectation and the value given, as the config's own do.
    const tools = write('tools:\n  moderation:\n    model: 42\n  web:\n    searxng_url: "ftp://search.internal"\n  mcp:\n    timeout_ms: 5\n');
    const checked = await run(["config", "check", "--config", tools, "--json"]);
    expect(checked.code).toBe(2);
    expect((JSON.parse(checked.stdout).errors as string[]).sort()).toEqual([
      "tools.mcp.timeout_ms: must be at least 100, got 5",
      "tools.moderation.model: expected a string, got 42",
      'tools.web.searxng_url: expected an http(s) URL, got "ftp://search.internal"',
    ]);
    const refused = await run(["serve", "--config", write("tools:\n  moderation:\n    model: 42\n"), "--port", "0", "--data-dir", join(root.path, "data")]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("invalid configuration: tools.moderation.model: expected a string, got 42");
  });

  test("a --config that is a directory says so: config check (text and --json), serve and ROUNDHOUSE_CONFIG exit 2", async () => {
    const directory = join(root.path, "conf.d");
    mkdirSync(directory, { recursive: true });
    const sentence = `config file ${directory} is a directory, not a file`;
    const text = await run(["config", "check", "--config", directory]);
    expect({ code: text.code, stdout: text.stdout }).toEqual({ code: 2, stdout: "" });
    expect(text.stderr).toEndWith(`\n  ${sentence}\n`);
    const json = await run(["config", "check", "--config", directory, "--json"]);
    expect({ code: json.code, body: JSON.parse(json.stdout) }).toEqual({ code: 2, body: { valid: false, source: directory, errors: [sentence] } });
    const serve = await run(["serve", "--config", directory, "--port", "0", "--data-dir", join(root.path, "data")]);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain(sentence);
    expect(serve.stderr).not.toContain("not found");
    const fromEnv = await run(["config", "check"], { ROUNDHOUSE_CONFIG: directory });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toEndWith(`\n  ${sentence}\n`);
  });

  test("environment variables apply as they do for serve: a bad override is reported, and the overrides in effect are named", async () => {
    const path = write(GOOD);
    const result = await run(["config", "check", "--config", path], { ROUNDHOUSE_LOG_LEVEL: "chatty" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('log.level must be one of debug, info, warn, error, silent (got "chatty")');
    expect(result.stderr).toContain("(environment overrides in effect: ROUNDHOUSE_LOG_LEVEL)");
    const json = await run(["config", "check", "--config", path, "--json"], { ROUNDHOUSE_PORT: "8081" });
    expect(JSON.parse(json.stdout)).toEqual({ valid: true, source: path, providers: 1, models: 2, environment_overrides: ["ROUNDHOUSE_PORT"] });
  });

  test("a YAML syntax error is one problem, with the line it is on", async () => {
    const path = write("server: [\n");
    const json = await run(["config", "check", "--config", path, "--json"]);
    expect(json.code).toBe(2);
    const errors = JSON.parse(json.stdout).errors as string[];
    expect(errors).toHaveLength(1);
    expect(errors[0]).toStartWith(`config file is not valid YAML (${path}): `);
    expect(errors[0]).toContain("line 2");
  });

  test("help, and bad usage exits 2", async () => {
    for (const [args, text] of [
      [["config", "--help"], "Usage: roundhouse config <command>"],
      [["help", "config"], "Usage: roundhouse config <command>"],
      [["config", "check", "--help"], "Usage: roundhouse config check"],
      [["config", "schema", "-h"], "yaml-language-server: $schema="],
      [["--help"], "config       check a config file"],
    ] as const) {
      const result = await run([...args]);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: "" });
      expect(result.stdout).toContain(text);
    }
    for (const [args, text] of [
      [["config"], "missing command: check or schema"],
      [["config", "frob"], "unknown command 'config frob'"],
      [["config", "check", "--bogus"], "--bogus"],
      [["config", "check", "--config", join(root.path, "missing.yaml")], "config file not found"],
    ] as const) {
      const result = await run([...args]);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toContain(text);
    }
  });
});

describe("config schema", () => {
  test("prints a draft-07 JSON Schema with a title and a description of every key, which a validator uses to accept and refuse files", async () => {
    const result = await run(["config", "schema"]);
    expect(result.code).toBe(0);
    const schema = JSON.parse(result.stdout);
    expect(schema).toMatchObject({ $schema: "http://json-schema.org/draft-07/schema#", title: "Roundhouse configuration", type: "object" });
    const undescribed: string[] = [];
    const walk = (node: any, path: string) => {
      for (const [key, child] of Object.entries<any>(node?.properties ?? {})) {
        if (typeof child.description !== "string" || child.description.length < 10) undescribed.push(`${path}${key}`);
        walk(child, `${path}${key}.`);
        walk(child.items, `${path}${key}[].`);
        for (const entry of Object.values(child.patternProperties ?? {})) walk(entry, `${path}${key}.<slug>.`);
      }
    };
    walk(schema, "");
    expect(undescribed).toEqual([]);
    const validator = new Validator(schema, "7", false);
    expect(validator.validate(parseYaml(GOOD)).valid).toBe(true);
    expect(validator.validate({}).valid).toBe(true);
    const bad = validator.validate(parseYaml(BAD));
    expect(bad.valid).toBe(false);
    expect(bad.errors.map((error) => error.instanceLocation)).toEqual(expect.arrayContaining(["#/log/level"]));
    expect(validator.validate({ models: [{ id: "a/b" }] }).valid).toBe(false);
  });
});

describe("configuration reference", () => {
  test("docs/configuration.md is what `npm run docs:config` generates from the schema, and the README links it", () => {
    const committed = readFileSync(join(ROOT, "docs", "configuration.md"), "utf8");
    expect(committed).toBe(configurationReference());
    expect(committed).toContain("| `server.port` | integer (≥ 0, ≤ 65535) | `8080` |");
    expect(committed).toContain("| `models[].endpoints[].provider` | string");
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("\n## ", readme.indexOf("## Configuration") + 1));
    expect(section).toContain("(docs/configuration.md)");
  });
});
