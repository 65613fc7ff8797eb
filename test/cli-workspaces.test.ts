import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { listening, tempDir } from "./helpers/gateway.ts";
import { cliJson, runCli } from "./helpers/cli.ts";

const root = tempDir("roundhouse-cli-workspaces-");
afterAll(() => root.remove());
const dataDir = join(root.path, "data");
const run = (args: string[]) => runCli(args, { dataDir, cwd: root.path });

test("workspaces: create, list, show, update the intern programme setting, refuse bad input, delete", async () => {
  expect(await cliJson(["workspaces", "list"], { dataDir })).toEqual([]);
  const created = await cliJson(["workspaces", "create", "--name", "Team", "--slug", "team", "--description", "the team"], { dataDir });
  expect(created).toMatchObject({ name: "Team", slug: "team", description: "the team", intern_api_access: false, created_by: null });
  expect(typeof created.id).toBe("string");

  const text = await run(["workspaces", "create", "--name", "Ops", "--slug", "ops", "--intern-api-access", "on"]);
  expect(text).toMatchObject({ code: 0, stderr: "" });
  expect(text.stdout).toMatch(/^Created workspace ops \(.+\), intern programme on\.\n$/);

  const listed = await cliJson<Array<{ slug: string; intern_api_access: boolean }>>(["workspaces", "list"], { dataDir });
  expect(listed.map((row) => [row.slug, row.intern_api_access])).toEqual([["team", false], ["ops", true]]);
  const table = await run(["workspaces", "list"]);
  expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+SLUG\s+NAME\s+INTERNS\s+CREATED$/);
  expect(table.stdout).toMatch(/team\s+Team\s+off/);

  const shown = await run(["workspaces", "show", "team"]);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain("intern programme: off");
  expect(await cliJson(["workspaces", "show", created.id], { dataDir })).toMatchObject({ id: created.id, slug: "team" });

  const updated = await cliJson(["workspaces", "update", "team", "--intern-api-access", "on", "--name", "Team A"], { dataDir });
  expect(updated).toMatchObject({ id: created.id, name: "Team A", intern_api_access: true, description: "the team" });
  expect(updated.updated_at).not.toBeNull();

  // Bad usage exits 2 naming the problem; something that does not exist or a refusal exits 1.
  const refusals: Array<[string[], number, string]> = [
    [["workspaces", "create", "--name", "X", "--slug", "Bad Slug"], 2, "--slug must be lowercase letters, digits and inner hyphens"],
    [["workspaces", "create", "--slug", "x"], 2, "--name is required"],
    [["workspaces", "create", "--name", "Again", "--slug", "team"], 1, "A workspace with this slug already exists"],
    [["workspaces", "update", "team", "--intern-api-access", "maybe"], 2, "--intern-api-access must be on or off, got 'maybe'"],
    [["workspaces", "update", "team"], 2, "nothing to change"],
    [["workspaces", "show", "nope"], 1, "no workspace with id or slug 'nope'"],
    [["workspaces", "delete", "nope"], 1, "no workspace with id or slug 'nope'"],
    [["workspaces", "frob"], 2, "unknown command 'workspaces frob'"],
    [["workspaces", "show"], 2, "give ID_OR_SLUG"],
  ];
  for (const [args, code, message] of refusals) {
    const result = await run(args);
    expect({ args, code: result.code }).toEqual({ args, code });
    expect(result.stderr).toContain(message);
  }

  // A workspace with API keys is refused until they are revoked, as by the API.
  const key = await cliJson<{ hash: string }>(["keys", "create", "--name", "k", "--workspace", "ops"], { dataDir });
  const refused = await run(["workspaces", "delete", "ops"]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("Workspace still has 1 API key(s)");
  expect((await run(["keys", "revoke", key.hash])).code).toBe(0);
  expect(await cliJson(["workspaces", "delete", "ops"], { dataDir })).toMatchObject({ deleted: true, slug: "ops" });
  expect((await cliJson<Array<{ slug: string }>>(["workspaces", "list"], { dataDir })).map((row) => row.slug)).toEqual(["team"]);
}, 120_000);

test("interns: the programme setting gates them; create, list, show, keys minted as the API mints them, revoke, delete", async () => {
  await cliJson(["workspaces", "create", "--name", "Closed", "--slug", "closed"], { dataDir });
  const closed = await run(["interns", "create", "--name", "Ada", "--workspace", "closed"]);
  expect(closed.code).toBe(1);
  expect(closed.stderr).toContain("workspace closed has the intern programme turned off; turn it on with 'roundhouse workspaces update closed --intern-api-access on'");

  const ada = await cliJson(["interns", "create", "--name", "Ada", "--workspace", "team", "--model", "test/gpt", "--description", "helps"], { dataDir });
  expect(ada).toMatchObject({ name: "Ada", workspace: "team", status: "stopped", model: "test/gpt", description: "helps", instructions: null });
  const listed = await cliJson<Array<{ id: string; name: string }>>(["interns", "list"], { dataDir });
  expect(listed.map((row) => [row.id, row.name])).toEqual([[ada.id, "Ada"]]);
  expect(await cliJson(["interns", "list", "--status", "running"], { dataDir })).toEqual([]);
  const shown = await run(["interns", "show", "Ada"]);
  expect(shown.stdout).toContain(`id:           ${ada.id}`);
  expect(shown.stdout).toContain("workspace:    team");

  const minted = await cliJson(["interns", "keys", "create", "Ada", "--name", "ada's key"], { dataDir });
  expect(minted).toMatchObject({ name: "ada's key", kind: "intern", intern_id: ada.id, disabled: false });
  expect(minted.key).toStartWith("sk-rh-intern-v1-");
  const plain = await run(["interns", "keys", "create", ada.id]);
  expect(plain.code).toBe(0);
  expect(plain.stdout).toMatch(/^sk-rh-intern-v1-\S+\n$/);
  expect(plain.stderr).toContain('Created key "Key of intern Ada" of intern Ada');
  const keys = await cliJson<Array<{ hash: string; name: string }>>(["interns", "keys", "list", "Ada"], { dataDir });
  expect(keys.map((row) => row.name)).toEqual(["ada's key", "Key of intern Ada"]);
  expect(JSON.stringify(keys)).not.toContain(minted.key);
  expect((await run(["interns", "keys", "list", "Ada"])).stdout).not.toContain(minted.key);

  const refusals: Array<[string[], number, string]> = [
    [["interns", "show", "Nobody"], 1, "no intern with id or name 'Nobody'"],
    [["interns", "create"], 2, "--name is required"],
    [["interns", "list", "--status", "asleep"], 2, "--status takes a comma list of"],
    [["interns", "keys", "create", "Ada", "--expires", "2001-01-01T00:00:00Z"], 2, "--expires must be in the future"],
    [["interns", "keys", "revoke", "Ada", "xyz"], 2, "is not a key hash"],
    [["interns", "keys", "revoke", "Ada", "00000000"], 1, "no key of intern Ada has a hash starting with 00000000"],
    [["interns", "frob"], 2, "unknown command 'interns frob'"],
  ];
  for (const [args, code, message] of refusals) {
    const result = await run(args);
    expect({ args, code: result.code }).toEqual({ args, code });
    expect(result.stderr).toContain(message);
  }

  // The minted key is an intern key of the gateway: it reads its own vault and nothing else.
  let gateway = await listening({ dataDir });
  try {
    const own = await fetch(`${gateway.url}/api/v1/vault/interns/${ada.id}/secrets`, { headers: { authorization: `Bearer ${minted.key}` } });
    expect(own.status).toBe(200);
    const workspaces = await fetch(`${gateway.url}/api/v1/workspaces`, { headers: { authorization: `Bearer ${minted.key}` } });
    expect(workspaces.status).toBe(404);
  } finally {
    await gateway.stop();
  }
  const revoked = await cliJson(["interns", "keys", "revoke", "Ada", minted.hash.slice(0, 10)], { dataDir });
  expect(revoked).toEqual({ deleted: true, hash: minted.hash });
  gateway = await listening({ dataDir });
  try {
    const after = await fetch(`${gateway.url}/api/v1/vault/interns/${ada.id}/secrets`, { headers: { authorization: `Bearer ${minted.key}` } });
    expect(after.status).toBe(401);
  } finally {
    await gateway.stop();
  }

  expect(await cliJson(["interns", "delete", "Ada"], { dataDir })).toEqual({ deleted: true, id: ada.id });
  expect(await cliJson(["interns", "list"], { dataDir })).toEqual([]);
  // Its keys went with it.
  const left = await cliJson<Array<{ kind: string }>>(["keys", "list", "--workspace", "team"], { dataDir });
  expect(left.filter((row) => row.kind === "intern")).toEqual([]);
}, 120_000);
