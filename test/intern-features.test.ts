/**
 * Interns' features over real HTTP and through the CLI: a feature's required connections are checked
 * against exactly the list of GET /vault/interns/{internId}/connections.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config/load.ts";
import { ADMIN_KEY, createKey, listening, MASTER_KEY, tempDir } from "./helpers/gateway.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const root = tempDir("roundhouse-features-");
const featuresDir = join(root.path, "features");
mkdirSync(featuresDir);
writeFileSync(join(featuresDir, "triage.yaml"), "id: triage\ntitle: Issue triage\nrequires: [linear]\n");
writeFileSync(join(featuresDir, "deploy.json"), JSON.stringify({ id: "deploy", title: "Deploys", requires: ["github", "google"] }));
writeFileSync(join(featuresDir, "README.txt"), "not a feature: skipped");
const configText = `interns:
  features_dir: ${JSON.stringify(featuresDir)}
  features:
    - id: code-review
      title: Code review
      description: Reviews pull requests
      requires: [github, "mcp:tools.example.com"]
      optional: [slack]
`;
const configPath = join(root.path, "config.yaml");
writeFileSync(configPath, configText);

type Gateway = Awaited<ReturnType<typeof listening>>;
let gateway: Gateway;
let ada: string;
let bob: string;

async function call(method: string, path: string, options: { key?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${gateway.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${options.key ?? ADMIN_KEY}`, "content-type": "application/json" },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
}

async function json(response: Response, status: number): Promise<any> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  return text === "" ? undefined : JSON.parse(text);
}

const features = async (intern: string, key?: string) => (await json(await call("GET", `/interns/${intern}/features`, { key }), 200)).data;
const add = (intern: string, feature: string) => call("POST", `/interns/${intern}/features`, { body: { feature } });

beforeAll(async () => {
  gateway = await listening({ configText, dataDir: join(root.path, "data") });
  const me = (await json(await call("GET", "/key"), 200)).data;
  await json(await call("PATCH", `/workspaces/${me.workspace_id}`, { body: { intern_api_access: true } }), 200);
  ada = (await json(await call("POST", "/interns", { body: { name: "Ada" } }), 201)).id;
  bob = (await json(await call("POST", "/interns", { body: { name: "Bob" } }), 201)).id;
  for (const key of ["github", "mcp:tools.example.com", "google"]) {
    await json(await call("PUT", `/vault/connections/${key}`, { body: { credentials: { token: `secret-${key}` } } }), 200);
  }
});

afterAll(async () => {
  await gateway.stop();
  root.remove();
});

describe("features over HTTP", () => {
  test("the declared features come from the config file and the features directory", async () => {
    const declared = (await json(await call("GET", "/features"), 200)).data;
    expect(declared.map((feature: { id: string }) => feature.id)).toEqual(["code-review", "deploy", "triage"]);
    expect(declared[0]).toEqual({
      id: "code-review",
      title: "Code review",
      description: "Reviews pull requests",
      requires: ["github", "mcp:tools.example.com"],
      optional: ["slack"],
    });
  });

  test("a feature whose required connections the intern can use is recorded, once", async () => {
    const created = (await json(await add(ada, "code-review"), 201)).data;
    expect(created).toMatchObject({ id: "code-review", status: "ready", missing: [], missing_optional: ["slack"] });
    const again = (await json(await add(ada, "code-review"), 200)).data;
    expect(again.added_at).toBe(created.added_at);
    expect((await features(ada)).map((feature: { id: string }) => feature.id)).toEqual(["code-review"]);
  });

  test("a missing connection: 409 naming it in the spec's envelope, nothing recorded", async () => {
    const body = await json(await add(ada, "triage"), 409);
    expect(body.error.code).toBe(409);
    expect(body.error.message).toContain("linear");
    expect(body.error.metadata.missing_connections).toEqual(["linear"]);
    expect(body).toHaveProperty("user_id");
    expect((await features(ada)).map((feature: { id: string }) => feature.id)).toEqual(["code-review"]);
  });

  test("a stored connection that is turned off, hidden or disabled does not count", async () => {
    await json(await call("PUT", `/vault/interns/${ada}/connections/google`, { body: { turned_off: true } }), 200);
    await json(await call("PUT", `/vault/interns/${bob}/connections/google`, { body: { hidden: true } }), 200);
    expect((await json(await add(ada, "deploy"), 409)).error.metadata.missing_connections).toEqual(["google"]);
    expect((await json(await add(bob, "deploy"), 409)).error.metadata.missing_connections).toEqual(["google"]);
    await json(await call("PUT", `/vault/interns/${bob}/connections/google`, { body: { hidden: false } }), 200);
    await json(await call("PATCH", "/vault/connections/google", { body: { enabled: false } }), 200);
    expect((await json(await add(bob, "deploy"), 409)).error.metadata.missing_connections).toEqual(["google"]);
    await json(await call("PATCH", "/vault/connections/google", { body: { enabled: true } }), 200);
    // A failed connection test does not matter.
    await json(await call("POST", "/vault/connections/google/test-result", { body: { ok: false } }), 200);
    expect((await json(await add(bob, "deploy"), 201)).data.status).toBe("ready");
    expect(await features(ada)).toHaveLength(1);
  });

  test("a feature whose connection goes away later is degraded, naming what is missing", async () => {
    await json(await call("PUT", `/vault/interns/${ada}/connections/github`, { body: { turned_off: true } }), 200);
    expect(await features(ada)).toEqual([expect.objectContaining({ id: "code-review", status: "degraded", missing: ["github"] })]);
    expect(await json(await call("DELETE", "/vault/connections/mcp:tools.example.com"), 204)).toBeUndefined();
    expect((await features(ada))[0].missing).toEqual(["github", "mcp:tools.example.com"]);
    await json(await call("PUT", `/vault/interns/${ada}/connections/github`, { body: { turned_off: false } }), 200);
    await json(await call("PUT", "/vault/connections/mcp:tools.example.com", { body: { credentials: "token" } }), 200);
    expect((await features(ada))[0].status).toBe("ready");
  });

  test("remove, then remove again: 404", async () => {
    expect(await json(await call("DELETE", `/interns/${bob}/features/deploy`), 200)).toEqual({ data: { deleted: true } });
    expect(await features(bob)).toEqual([]);
    expect((await json(await call("DELETE", `/interns/${bob}/features/deploy`), 404)).error.message).toContain("deploy");
  });

  test("an undeclared feature is a 404 naming the declared ones; a bad body is a 400", async () => {
    expect((await json(await add(ada, "nope"), 404)).error.message).toContain("declared: code-review, deploy, triage");
    expect((await json(await call("POST", `/interns/${ada}/features`, { body: { id: "code-review" } }), 400)).error.code).toBe(400);
  });

  test("an intern's own key reads its own features and nothing else", async () => {
    const own = (await json(await call("POST", `/interns/${ada}/keys`, { body: {} }), 201)).key;
    expect((await features(ada, own)).map((feature: { id: string }) => feature.id)).toEqual(["code-review"]);
    await json(await call("GET", `/interns/${bob}/features`, { key: own }), 404);
    await json(await call("POST", `/interns/${ada}/features`, { key: own, body: { feature: "deploy" } }), 404);
    await json(await call("DELETE", `/interns/${ada}/features/code-review`, { key: own }), 404);
    await json(await call("GET", "/features", { key: own }), 404);
  });

  test("an inference key sees no intern: 404, as for an intern it cannot see", async () => {
    const { key } = await createKey({ call: (method, path, options) => call(method, path, options as { body?: unknown }) }, { name: "inference" });
    await json(await call("POST", `/interns/${ada}/features`, { key, body: { feature: "deploy" } }), 404);
    await json(await call("GET", `/interns/${ada}/features`, { key }), 404);
    expect((await json(await call("GET", "/features", { key }), 403)).error.code).toBe(403);
  });
});

describe("features through the CLI", () => {
  async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: Record<string, string> = {
      ...Object.fromEntries(Object.entries(process.env).filter(([name, value]) => !name.startsWith("ROUNDHOUSE_") && value !== undefined)),
      ROUNDHOUSE_CONFIG: configPath,
      ROUNDHOUSE_DATA_DIR: join(root.path, "data"),
      ROUNDHOUSE_MASTER_KEY: MASTER_KEY,
    } as Record<string, string>;
    const child = Bun.spawn([process.execPath, MAIN, "interns", "features", ...args], { env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { code, stdout, stderr };
  }

  test("add with a missing connection exits 1 naming it and records nothing", async () => {
    const result = await cli(["add", "Ada", "triage"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("linear");
    expect(await features(ada)).toHaveLength(1);
  });

  test("add by name, idempotently; list; remove", async () => {
    const added = await cli(["add", "Bob", "deploy"]);
    expect(added).toMatchObject({ code: 0, stdout: `Added feature deploy to intern Bob (${bob}).\n` });
    expect((await cli(["add", bob, "deploy"])).stdout).toContain("already has feature deploy");
    expect((await features(bob)).map((feature: { id: string }) => feature.id)).toEqual(["deploy"]);
    const listed = await cli(["list", "Bob", "--json"]);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: "deploy", status: "ready" })]);
    await json(await call("PUT", `/vault/interns/${bob}/connections/google`, { body: { turned_off: true } }), 200);
    expect((await cli(["list", "Bob"])).stdout).toContain("degraded: missing google");
    expect((await cli(["remove", "Bob", "deploy"])).code).toBe(0);
    expect(await features(bob)).toEqual([]);
    expect((await cli(["remove", "Bob", "deploy"])).code).toBe(1);
  });

  test("with the workspace's intern programme off, add, list and remove exit 1 with the hint to turn it on, as the API answers 404", async () => {
    const me = (await json(await call("GET", "/key"), 200)).data;
    const { slug } = (await json(await call("GET", `/workspaces/${me.workspace_id}`), 200)).data;
    const before = await features(ada);
    await json(await call("PATCH", `/workspaces/${me.workspace_id}`, { body: { intern_api_access: false } }), 200);
    try {
      expect((await call("GET", `/interns/${ada}/features`)).status).toBe(404);
      const hint = `roundhouse: workspace ${slug} has the intern programme turned off; turn it on with 'roundhouse workspaces update ${slug} --intern-api-access on'\n`;
      for (const args of [["add", "Ada", "deploy"], ["list", "Ada"], ["list", ada, "--json"], ["remove", "Ada", "code-review"]]) {
        const result = await cli(args);
        expect({ args, ...result }).toEqual({ args, code: 1, stdout: "", stderr: hint });
      }
    } finally {
      await json(await call("PATCH", `/workspaces/${me.workspace_id}`, { body: { intern_api_access: true } }), 200);
    }
    // Nothing was added or removed while it was off.
    expect(await features(ada)).toEqual(before);
  });

  test("an unknown intern or feature exits 1; wrong arguments exit 2", async () => {
    expect((await cli(["add", "Nobody", "deploy"])).stderr).toContain("no intern with id or name 'Nobody'");
    expect((await cli(["add", "Ada", "nope"])).code).toBe(1);
    expect((await cli(["add", "Ada"])).code).toBe(2);
    expect((await cli(["--help"])).stdout).toContain("features add INTERN FEATURE");
  });
});

describe("features in the config", () => {
  test("a feature with a connection key of no known form, or a duplicated id, stops the start naming where", async () => {
    const bad = join(root.path, "bad-features");
    mkdirSync(bad);
    writeFileSync(join(bad, "a.yaml"), "id: a\ntitle: A\nrequires: ['mcp:https://x.example.com']\n");
    writeFileSync(join(bad, "b.yaml"), "id: a\ntitle: B\n");
    writeFileSync(join(bad, "c.yaml"), "id: c\ntitle: C\nrequirez: [github]\n");
    const error = await loadConfig({ text: `interns:\n  features_dir: ${JSON.stringify(bad)}\n`, env: {} }).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain(`${join(bad, "a.yaml")}.requires[0]: 'mcp:https://x.example.com'`);
    expect(message).toContain(`${join(bad, "b.yaml")}: feature id 'a' is already declared by ${join(bad, "a.yaml")}`);
    expect(message).toContain(`${join(bad, "c.yaml")}: requirez: unknown key`);
  });

  test("a features_dir that does not exist is named", async () => {
    const error = await loadConfig({ text: "interns:\n  features_dir: /nonexistent/features\n", env: {} }).catch((caught: Error) => caught);
    expect((error as Error).message).toContain("interns.features_dir: /nonexistent/features does not exist");
  });
});
