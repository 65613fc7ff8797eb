import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SecretBox } from "../src/core/secret-box.ts";
import { openSqliteBackend } from "../src/db/backend.ts";
import { VaultStore } from "../src/db/vault.ts";
import { callApi, listening, MASTER_KEY, tempDir } from "./helpers/gateway.ts";
import { type CliResult, cliJson, runCli } from "./helpers/cli.ts";

const root = tempDir("roundhouse-cli-vault-");
afterAll(() => root.remove());
const dataDir = join(root.path, "data");

const WORKSPACE_VALUE = "ws-secret-value-7f3a9c";
const INTERN_VALUE = "intern-secret-value-51be04";
const CREDENTIALS = "ghp_connection-credential-c0ffee";
const SECRETS = [WORKSPACE_VALUE, INTERN_VALUE, CREDENTIALS];

/** Every CLI output of this file, to show that no secret value or credential was ever printed. */
const outputs: CliResult[] = [];
async function run(args: string[], stdin?: string): Promise<CliResult> {
  const result = await runCli(args, { dataDir, cwd: root.path, ...(stdin === undefined ? {} : { stdin }) });
  outputs.push(result);
  return result;
}
async function json<T = any>(args: string[], stdin?: string): Promise<T> {
  const result = await run([...args, "--json"], stdin);
  if (result.code !== 0) throw new Error(`roundhouse ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** A stored secret's plaintext, read the way the gateway reads it. */
async function reveal(scope: { workspaceId: string; internId: string | null }, name: string) {
  const backend = openSqliteBackend({ dataDir });
  try {
    return await new VaultStore(backend, new SecretBox(Buffer.from(MASTER_KEY, "hex"))).reveal(scope, name);
  } finally {
    await backend.close();
  }
}

test("vault secrets and connections: set from stdin or a file, list names only, per-intern connection settings, delete; no value is ever printed", async () => {
  const workspace = await cliJson(["workspaces", "create", "--name", "Main", "--slug", "main"], { dataDir });
  // The vault belongs to the intern programme: refused while it is off.
  const off = await run(["vault", "secrets", "list"]);
  expect(off.code).toBe(1);
  expect(off.stderr).toContain("workspace main has the intern programme turned off");
  await cliJson(["workspaces", "update", "main", "--intern-api-access", "on"], { dataDir });
  const ada = await cliJson(["interns", "create", "--name", "Ada"], { dataDir });

  const stored = await json(["vault", "secrets", "set", "github_token", "--host", "API.GitHub.com", "--host", "api.github.com"], `${WORKSPACE_VALUE}\n`);
  expect(stored).toEqual({ name: "github_token", hosts: ["api.github.com"], intern_id: null, created_at: expect.any(String), updated_at: expect.any(String) });
  expect(await reveal({ workspaceId: workspace.id, internId: null }, "github_token")).toEqual({ value: WORKSPACE_VALUE, hosts: ["api.github.com"] });

  const valueFile = join(root.path, "value.txt");
  writeFileSync(valueFile, INTERN_VALUE);
  const text = await run(["vault", "secrets", "set", "slack_token", "--host", "slack.com", "--intern", "Ada", "--value-file", valueFile]);
  expect(text).toMatchObject({ code: 0, stdout: "Stored secret slack_token in intern Ada's vault, for slack.com.\n" });
  expect(await reveal({ workspaceId: workspace.id, internId: ada.id }, "slack_token")).toEqual({ value: INTERN_VALUE, hosts: ["slack.com"] });

  expect((await json<Array<{ name: string }>>(["vault", "secrets", "list"])).map((row) => row.name)).toEqual(["github_token"]);
  const internList = await json<Array<Record<string, unknown>>>(["vault", "secrets", "list", "--intern", ada.id]);
  expect(internList).toEqual([{ name: "slack_token", hosts: ["slack.com"], intern_id: ada.id, created_at: expect.any(String), updated_at: expect.any(String) }]);
  const table = await run(["vault", "secrets", "list"]);
  expect(table.stdout.split("\n")[0]).toMatch(/^NAME\s+HOSTS\s+UPDATED$/);
  expect(table.stdout).toContain("github_token  api.github.com");

  // A connection stored through the API (with its credentials) as an operator's dashboard would.
  const gateway = await listening({ dataDir });
  try {
    const put = await callApi(gateway.url, "PUT", "/vault/connections/github", { credentials: CREDENTIALS });
    expect(put.status).toBe(200);
    expect(await json(["vault", "connections", "list"])).toEqual([
      { key: "github", enabled: true, has_credentials: true, last_test: null, created_at: expect.any(String), updated_at: expect.any(String) },
    ]);
    expect((await run(["vault", "connections", "show", "github"])).stdout).toContain("credentials:  stored (never shown)");
    const before = await json<Array<Record<string, unknown>>>(["vault", "connections", "list", "--intern", "Ada"]);
    expect(before).toMatchObject([{ key: "github", intern_id: ada.id, turned_off: false, hidden: false, usable: true }]);

    expect(await json(["vault", "connections", "set", "github", "--intern", "Ada", "--turned-off", "on"])).toEqual({ key: "github", intern_id: ada.id, turned_off: true, hidden: false });
    // The gateway sees the setting: the intern can no longer use the connection.
    const usable = await callApi(gateway.url, "GET", `/vault/interns/${ada.id}/connections`);
    expect(await usable.json()).toEqual({ data: [] });
    expect(await json(["vault", "connections", "list", "--intern", "Ada"])).toMatchObject([{ key: "github", turned_off: true, usable: false }]);
    const settings = await run(["vault", "connections", "list", "--intern", "Ada"]);
    expect(settings.stdout).toMatch(/github\s+yes\s+yes\s+no\s+no/);

    const refusals: Array<[string[], number, string, string?]> = [
      [["vault", "secrets", "set", "Bad-Name", "--host", "x.com"], 2, "name: must be 1 to 255 lowercase letters"],
      [["vault", "secrets", "set", "token"], 2, "give at least one --host", "value"],
      [["vault", "secrets", "set", "token", "--host", "not a host"], 2, "--host[0]:", "value"],
      [["vault", "secrets", "set", "token", "--host", "x.com"], 2, "the value: must not be empty", ""],
      [["vault", "secrets", "set", "token", "--host", "x.com", "--value-file", join(root.path, "missing")], 1, "no such file"],
      [["vault", "secrets", "delete", "nothing_here"], 1, "no secret nothing_here in workspace main's vault"],
      [["vault", "secrets", "list", "--intern", "Nobody"], 1, "no intern with id or name 'Nobody'"],
      [["vault", "connections", "show", "gitlab"], 1, "no connection 'gitlab'"],
      [["vault", "connections", "show", "Not A Key"], 2, "KEY:"],
      [["vault", "connections", "set", "github", "--intern", "Ada"], 2, "nothing to change"],
      [["vault", "connections", "set", "github", "--turned-off", "on"], 2, "--intern is required"],
      [["vault", "frob"], 2, "unknown command 'vault frob'"],
    ];
    for (const [args, code, message, stdin] of refusals) {
      const result = await run(args, stdin);
      expect({ args, code: result.code }).toEqual({ args, code });
      expect(result.stderr).toContain(message);
    }

    expect(await json(["vault", "connections", "delete", "github"])).toEqual({ deleted: true, key: "github" });
    expect(await json(["vault", "connections", "list"])).toEqual([]);
  } finally {
    await gateway.stop();
  }
  expect(await json(["vault", "secrets", "delete", "slack_token", "--intern", "Ada"])).toEqual({ deleted: true, name: "slack_token" });
  expect((await run(["vault", "secrets", "delete", "github_token"])).stdout).toBe("Deleted secret github_token from workspace main's vault.\n");
  expect(await json(["vault", "secrets", "list"])).toEqual([]);
  expect(await reveal({ workspaceId: workspace.id, internId: null }, "github_token")).toBeUndefined();

  const printed = outputs.map((result) => result.stdout + result.stderr).join("\n");
  expect(outputs.length).toBeGreaterThan(25);
  for (const secret of SECRETS) expect(printed).not.toContain(secret);
}, 120_000);
