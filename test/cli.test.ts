import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import packageJson from "../package.json" with { type: "json" };
import { openSqliteBackend } from "../src/db/backend.ts";
import { PresetStore } from "../src/db/presets.ts";
import { apiKeys, presets } from "../src/db/schema.ts";
import { VaultStore } from "../src/db/vault.ts";
import { WorkspaceStore } from "../src/db/workspaces.ts";
import { SecretBox } from "../src/core/secret-box.ts";
import { ADMIN_KEY, listening, MASTER_KEY, tempDir } from "./helpers/gateway.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const root = tempDir("roundhouse-cli-");
afterAll(() => root.remove());
let dirs = 0;
const freshDir = () => join(root.path, `data-${++dirs}`);

/** The parent's environment without any ROUNDHOUSE_* variable, so a developer's settings do not leak in. */
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ROUNDHOUSE_")));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(args: string[], options: { dataDir?: string; env?: Record<string, string | undefined> } = {}): Promise<Result> {
  const env: Record<string, string | undefined> = {
    ...baseEnv,
    ROUNDHOUSE_DATA_DIR: options.dataDir ?? join(root.path, "unused"),
    ROUNDHOUSE_MASTER_KEY: MASTER_KEY,
    ROUNDHOUSE_LOG_LEVEL: "error",
    ...options.env,
  };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = Bun.spawn([process.execPath, MAIN, ...args], { env, stdout: "pipe", stderr: "pipe", cwd: root.path });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

describe("help, version and usage", () => {
  test("every command and subcommand answers --help with exit 0", async () => {
    const cases: Array<[string[], string]> = [
      [["--help"], "Exit codes"],
      [["help"], "Exit codes"],
      [[], "Usage: roundhouse <command>"],
      [["help", "doctor"], "roundhouse doctor"],
      [["serve", "--help"], "roundhouse serve"],
      [["keys", "--help"], "roundhouse keys <command>"],
      [["keys", "create", "--help"], "roundhouse keys create"],
      [["keys", "list", "--help"], "roundhouse keys list"],
      [["keys", "revoke", "-h"], "roundhouse keys revoke"],
      [["presets", "--help"], "roundhouse presets <command>"],
      [["presets", "export", "--help"], "roundhouse presets export"],
      [["presets", "import", "--help"], "roundhouse presets import"],
      [["migrate", "--help"], "roundhouse migrate"],
      [["doctor", "--help"], "roundhouse doctor"],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    results.forEach((result, index) => {
      expect({ args: cases[index]![0], code: result.code, stderr: result.stderr }).toEqual({ args: cases[index]![0], code: 0, stderr: "" });
      expect(result.stdout).toContain(cases[index]![1]);
    });
    for (const args of [["--version"], ["version"]]) expect((await run(args)).stdout).toStartWith(`roundhouse ${packageJson.version} (commit `);
  });

  test("bad usage and bad configuration exit 2 with a message", async () => {
    const cases: Array<[string[], string]> = [
      [["frob"], "unknown command 'frob'"],
      [["keys"], "missing command"],
      [["keys", "frob"], "unknown command 'keys frob'"],
      [["keys", "create"], "--name is required"],
      [["keys", "create", "--name", "x", "--kind", "root"], "--kind must be inference or management"],
      [["keys", "create", "--name", "x", "--deployment-admin"], "--deployment-admin needs --kind management"],
      [["keys", "create", "--name", "x", "--limit=-1"], "--limit must be a non-negative number"],
      [["keys", "create", "--name", "x", "--expires", "2001-01-01T00:00:00Z"], "--expires must be in the future"],
      [["keys", "create", "--name", "x", "--expires", "tomorrow"], "--expires must be an ISO 8601 timestamp"],
      [["keys", "list", "--bogus"], "--bogus"],
      [["keys", "revoke", "abc"], "at least 8 hex characters"],
      [["keys", "revoke"], "exactly one"],
      [["serve", "--port", "99999"], "--port must be an integer from 0 to 65535"],
      [["doctor", "--timeout-ms", "soon"], "--timeout-ms"],
      [["presets"], "missing command"],
      [["presets", "import"], "give the preset files"],
      [["presets", "import", join(root.path, "missing")], "no such file or directory"],
      [["migrate", "extra"], "unexpected argument 'extra'"],
      [["keys", "list", "--config", join(root.path, "missing.yaml")], "config file not found"],
      [["migrate"], "ROUNDHOUSE_PORT"],
      [["keys", "list"], "ROUNDHOUSE_MASTER_KEY must hold 32 bytes"],
    ];
    const envFor = (index: number) =>
      index === cases.length - 2 ? { ROUNDHOUSE_PORT: "eighty" } : index === cases.length - 1 ? { ROUNDHOUSE_MASTER_KEY: "short" } : {};
    const results = await Promise.all(cases.map(([args], index) => run(args, { dataDir: freshDir(), env: envFor(index) })));
    results.forEach((result, index) => {
      expect({ args: cases[index]![0], code: result.code }).toEqual({ args: cases[index]![0], code: 2 });
      expect(result.stderr).toContain(cases[index]![1]);
      expect(result.stderr).toStartWith("roundhouse: ");
    });
  });
});

describe("serve", () => {
  test("starts, prints the first keys and the URL, answers, and stops on SIGTERM with exit 0", async () => {
    const child = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", freshDir()], {
      env: { ...baseEnv, ROUNDHOUSE_MASTER_KEY: MASTER_KEY, ROUNDHOUSE_LOG_LEVEL: "error" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = child.stdout.getReader();
    let output = "";
    while (!output.includes("API: ")) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`serve exited early: ${output}`);
      output += new TextDecoder().decode(chunk.value);
    }
    const url = /API:\s+(\S+)/.exec(output)![1]!;
    expect(output).toContain(`dashboard:  ${/listening on (\S+)/.exec(output)![1]}/`);
    const inferenceKey = /inference key:\s+(\S+)/.exec(output)![1]!;
    const response = await fetch(`${url}/key`, { headers: { authorization: `Bearer ${inferenceKey}` } });
    expect(response.status).toBe(200);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  });
});

describe("keys", () => {
  const dataDir = freshDir();

  test("create, list, revoke; a revoked key no longer authenticates", async () => {
    const created = await run(["keys", "create", "--name", "ci", "--json"], { dataDir });
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as { key: string; hash: string; kind: string; workspace: string };
    expect(key).toMatchObject({ kind: "inference", workspace: "main" });
    expect(key.key).toMatch(/^sk-rh-v1-/);

    const second = await run(["keys", "create", "--name", "ops", "--kind", "management", "--workspace", "main", "--limit", "12.5", "--expires", "2099-01-01T00:00:00Z"], { dataDir });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^sk-rh-mgmt-v1-[0-9a-f]{64}\n$/);
    expect(second.stderr).toContain("shown only this once");

    const [listed, table, missing] = await Promise.all([
      run(["keys", "list", "--json"], { dataDir }),
      run(["keys", "list"], { dataDir }),
      run(["keys", "list", "--workspace", "nope"], { dataDir }),
    ]);
    const rows = JSON.parse(listed.stdout) as Array<{ hash: string; name: string; limit: number | null; expires_at: string | null; workspace_id: string }>;
    expect(rows.map((row) => row.name)).toEqual(["ci", "ops"]);
    // The deployment's first management key is its deployment admin, as the bootstrap key would be.
    expect(rows[1]).toMatchObject({ limit: 12.5, expires_at: "2099-01-01T00:00:00.000Z", deployment_admin: true });
    expect(rows[0]).toMatchObject({ deployment_admin: false });
    expect(table.stdout.split("\n")[0]).toMatch(/^HASH\s+NAME\s+KIND\s+WORKSPACE\s+DISABLED\s+CREATED$/);
    expect(table.stdout).toContain(`${key.hash.slice(0, 12)}  ci`);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no workspace with id or slug 'nope'");

    let gateway = await listening({ dataDir });
    try {
      const response = await fetch(`${gateway.url}/api/v1/key`, { headers: { authorization: `Bearer ${key.key}` } });
      expect(response.status).toBe(200);
    } finally {
      await gateway.stop();
    }

    // Two keys sharing an 8-character prefix make that prefix ambiguous.
    const db = openSqliteBackend({ dataDir });
    for (const digit of ["0", "1"]) {
      await db.db
        .insert(apiKeys)
        .values({ hash: `deadbeef${digit.repeat(56)}`, kind: "inference", name: `twin ${digit}`, label: "x", workspaceId: rows[0]!.workspace_id, createdAt: new Date().toISOString() });
    }
    await db.close();
    const [ambiguous, unknown] = await Promise.all([run(["keys", "revoke", "deadbeef"], { dataDir }), run(["keys", "revoke", "0123456789abcdef"], { dataDir })]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("matches more than one key");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no key's hash starts with 0123456789abcdef");
    expect((await run(["keys", "revoke", "deadbeef1"], { dataDir })).code).toBe(0);

    const revoked = await run(["keys", "revoke", key.hash.slice(0, 10).toUpperCase()], { dataDir });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked inference key "ci" (hash ${key.hash.slice(0, 12)})`);
    const after = JSON.parse((await run(["keys", "list", "--json"], { dataDir })).stdout) as Array<{ name: string }>;
    expect(after.map((row) => row.name)).toEqual(["ops", "twin 0"]);

    gateway = await listening({ dataDir });
    try {
      const response = await fetch(`${gateway.url}/api/v1/key`, { headers: { authorization: `Bearer ${key.key}` } });
      expect(response.status).toBe(401);
    } finally {
      await gateway.stop();
    }
  });
});

describe("keys create --deployment-admin", () => {
  test("the first management key of an empty database is the deployment admin; the flag makes another", async () => {
    const dataDir = freshDir();
    const first = await run(["keys", "create", "--name", "first", "--kind", "management", "--json"], { dataDir });
    expect(JSON.parse(first.stdout)).toMatchObject({ kind: "management", deployment_admin: true });
    const [team, admin] = await Promise.all([
      run(["keys", "create", "--name", "team", "--kind", "management", "--json"], { dataDir }),
      run(["keys", "create", "--name", "second admin", "--kind", "management", "--deployment-admin", "--json"], { dataDir }),
    ]);
    expect(JSON.parse(team.stdout)).toMatchObject({ kind: "management", deployment_admin: false });
    expect(JSON.parse(admin.stdout)).toMatchObject({ kind: "management", deployment_admin: true });
  });
});

describe("presets", () => {
  test("export then import into an empty database round-trips exactly", async () => {
    const source = freshDir();
    const db = openSqliteBackend({ dataDir: source });
    const workspace = await new WorkspaceStore(db).create({ name: "Main", slug: "main" }, null);
    const store = new PresetStore(db);
    const bot = (n: number, prompt: string | null) =>
      store.createVersion(workspace.id, "support-bot", { config: { model: "openai/gpt-4o", temperature: n / 10, provider: { order: ["a", "b"] }, nested: { list: [1, { x: null }] } }, systemPrompt: prompt }, "user_1");
    await bot(1, "You answer support questions.");
    const second = await bot(2, "Réponds en français — merci ✓");
    await bot(3, null);
    await store.createVersion(workspace.id, "summarizer", { config: { models: ["a/b", "c/d"] }, systemPrompt: "Summarize." }, "user_2");
    // A designated version other than the latest must survive too.
    await db.db.update(presets).set({ designatedVersionId: second.version!.id }).where(eq(presets.id, second.preset.id));
    await db.close();

    const first = join(root.path, "export-1");
    const exported = await run(["presets", "export", "--out", first], { dataDir: source });
    // Once seen failing under heavy load with exit 1 and never since: say what it printed if it does.
    if (exported.code !== 0) throw new Error(`presets export exited ${exported.code}: ${exported.stderr}${exported.stdout}`);
    expect(readdirSync(first).sort()).toEqual(["summarizer.json", "support-bot.json"]);
    const file = JSON.parse(readFileSync(join(first, "support-bot.json"), "utf8"));
    expect(file.versions.map((version: { version: number }) => version.version)).toEqual([1, 2, 3]);
    expect(file.preset.designated_version_id).toBe(second.version!.id);

    const target = freshDir();
    const imported = await run(["presets", "import", first], { dataDir: target });
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain("imported support-bot");
    const again = join(root.path, "export-2");
    expect((await run(["presets", "export", "--out", again], { dataDir: target })).code).toBe(0);
    for (const name of ["summarizer.json", "support-bot.json"]) {
      expect(readFileSync(join(again, name), "utf8")).toBe(readFileSync(join(first, name), "utf8"));
    }

    // The designated version is served by the gateway started on the imported database.
    const gateway = await listening({ dataDir: target });
    try {
      const response = await fetch(`${gateway.url}/api/v1/presets/support-bot`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(((await response.json()) as { data: { designated_version: { version: number } } }).data.designated_version.version).toBe(2);
    } finally {
      await gateway.stop();
    }
  });

  test("an existing slug refuses the whole import unless --replace; bad files and unknown slugs fail", async () => {
    const dataDir = freshDir();
    const seed = openSqliteBackend({ dataDir });
    const workspace = await new WorkspaceStore(seed).create({ name: "Main", slug: "main" }, null);
    const store = new PresetStore(seed);
    await store.createVersion(workspace.id, "alpha", { config: { model: "a/b" }, systemPrompt: null }, "u");
    await seed.close();
    const files = join(root.path, "conflict");
    expect((await run(["presets", "export", "--out", files, "alpha"], { dataDir })).code).toBe(0);
    const other = JSON.parse(readFileSync(join(files, "alpha.json"), "utf8"));
    other.preset.slug = "beta";
    other.preset.id = "beta-id";
    other.versions[0].id = "beta-version";
    other.preset.designated_version_id = "beta-version";
    writeFileSync(join(files, "beta.json"), JSON.stringify(other));

    const refused = await run(["presets", "import", files], { dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Presets already exist in this workspace: alpha (pass --replace to replace them); nothing was imported");
    const listing = join(root.path, "conflict-after");
    await run(["presets", "export", "--out", listing], { dataDir });
    expect(readdirSync(listing)).toEqual(["alpha.json"]);

    const replaced = await run(["presets", "import", "--replace", join(files, "alpha.json"), join(files, "beta.json")], { dataDir });
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toContain("replaced alpha");
    expect(replaced.stdout).toContain("imported beta");

    writeFileSync(join(files, "broken.json"), JSON.stringify({ ...other, versions: [{ ...other.versions[0], version: 0 }] }));
    const [broken, unknown] = await Promise.all([
      run(["presets", "import", "--replace", join(files, "broken.json")], { dataDir }),
      run(["presets", "export", "--out", listing, "nope"], { dataDir }),
    ]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("broken.json: versions.0.version");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Preset 'nope' not found");
  });
});

describe("migrate and doctor", () => {
  const dataDir = freshDir();

  test("migrate applies every migration once, then is up to date", async () => {
    const applied = await run(["migrate"], { dataDir });
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("applied 0000_init");
    const second = await run(["migrate", "--data-dir", dataDir], { dataDir: join(root.path, "elsewhere") });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("up to date");
  });

  test("doctor is all ok on a migrated data directory with the default config", async () => {
    const result = await run(["doctor"], { dataDir });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines.map((line) => line.split(":")[0])).toEqual([
      "ok    config",
      "ok    data dir",
      "ok    database",
      "ok    migrations",
      "ok    master key",
      "ok    upstream simulated",
    ]);
  });

  test("doctor checks the master key file's mode and that the key decrypts a stored secret", async () => {
    const other = freshDir();
    const db = openSqliteBackend({ dataDir: other });
    const workspace = await new WorkspaceStore(db).create({ name: "Main", slug: "main" }, null);
    await new VaultStore(db, new SecretBox(Buffer.from(MASTER_KEY, "hex"))).put({ workspaceId: workspace.id, internId: null }, "token", ["example.com"], "secret");
    await db.close();
    const keyFile = join(other, "master.key");
    writeFileSync(keyFile, `${"b".repeat(64)}\n`);
    chmodSync(keyFile, 0o644);
    const [right, wrong, exposed] = await Promise.all([
      run(["doctor"], { dataDir: other }),
      run(["doctor"], { dataDir: other, env: { ROUNDHOUSE_MASTER_KEY: "c".repeat(64) } }),
      run(["doctor"], { dataDir: other, env: { ROUNDHOUSE_MASTER_KEY: undefined } }),
    ]);
    expect(right.code).toBe(0);
    expect(right.stdout).toContain("ok    master key: ROUNDHOUSE_MASTER_KEY decrypts the stored secrets");
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain("FAIL  master key: ROUNDHOUSE_MASTER_KEY does not decrypt the stored secrets");
    expect(exposed.code).toBe(1);
    expect(exposed.stdout).toContain(`FAIL  master key: ${keyFile} has mode 0644`);
  });

  test("doctor FAILs an unreachable upstream and a bad config file", async () => {
    const up = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const closedPort = closed.port;
    closed.stop(true);
    const config = join(root.path, "upstreams.yaml");
    writeFileSync(
      config,
      `providers:
  live: {type: openai-compatible, base_url: "http://127.0.0.1:${up.port}/v1"}
  gone: {type: openai-compatible, base_url: "http://127.0.0.1:${closedPort}/v1"}
models:
  - id: local/model
    endpoints: [{provider: live}, {provider: gone}]
`,
    );
    const bad = join(root.path, "bad.yaml");
    writeFileSync(bad, "server:\n  port: eighty\n");
    try {
      const [unreachable, invalid] = await Promise.all([
        run(["doctor", "--config", config, "--timeout-ms", "2000"], { dataDir }),
        run(["doctor", "--config", bad], { dataDir }),
      ]);
      expect(unreachable.code).toBe(1);
      expect(unreachable.stdout).toContain(`ok    upstream live: http://127.0.0.1:${up.port}/v1 accepted a connection`);
      expect(unreachable.stdout).toContain(`FAIL  upstream gone: cannot reach http://127.0.0.1:${closedPort}/v1 (127.0.0.1:${closedPort}): connection refused`);
      expect(invalid.code).toBe(1);
      expect(invalid.stdout).toStartWith("FAIL  config: invalid configuration");
      expect(invalid.stdout).toContain('server.port: expected integer, got "eighty"');
    } finally {
      up.stop(true);
    }
  });
});
