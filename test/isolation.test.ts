/**
 * Isolation: every route × every key kind × own and foreign workspace (and own, sibling and foreign
 * intern) answers the right 401, 403 or 404 (README "Keys, workspaces and scope", the spec's
 * Authentication), and no response ever carries another scope's data. The matrix itself is in
 * test/isolation-matrix.ts; a route missing from it fails the first test.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { routesOf } from "./helpers/fuzz.ts";
import {
  CALLERS, type CallerKind, leaks, markersOf, type Side, seedWorld, send, snapshot, victimsOf, type World,
} from "./helpers/isolation.ts";
import { type Entry, type Expect, MATRIX, type Target } from "./isolation-matrix.ts";

const INVALID_KEY = `sk-rh-v1-${"0".repeat(64)}`;
let world: World;

beforeAll(async () => {
  world = await seedWorld();
});

function expected(entry: Entry, caller: CallerKind, target: Target, admin: boolean): number {
  if (entry.public) return 200;
  if (entry.keyless !== undefined) return entry.keyless;
  if (caller !== "management" && caller !== "inference" && caller !== "intern") return 401;
  const rule: Expect = (admin && caller === "management" ? entry.admin : undefined) ?? entry[caller];
  if (typeof rule === "number") return rule;
  const status = rule[target];
  if (status === undefined) throw new Error(`matrix: no ${caller} expectation for target ${target}`);
  return status;
}

function keyOf(side: Side, caller: CallerKind): string | null {
  if (caller === "none") return null;
  if (caller === "invalid") return INVALID_KEY;
  return side.keys[caller];
}

/** `admin`: self's management key is the deployment admin. */
async function runMatrix(self: Side, other: Side, options: { programmeOff?: boolean; admin?: boolean } = {}): Promise<string[]> {
  const { gateway } = world;
  const admin = options.admin ?? false;
  const problems: string[] = [];
  for (const route of routesOf(gateway)) {
    const name = `${route.method} ${route.path}`;
    const entry = MATRIX[name];
    if (!entry) continue;
    if (options.programmeOff && !entry.programme) continue;
    const targets: Target[] = options.programmeOff ? ["own"] : entry.targets;
    for (const caller of CALLERS) {
      for (const target of targets) {
        const status = options.programmeOff && ["management", "inference", "intern"].includes(caller) ? 404 : expected(entry, caller, target, admin);
        const side = target === "foreign" ? other : self;
        const request = await entry.request({
          side,
          target,
          internId: target === "sibling" ? self.siblingId : side.internId,
          victim: status < 300 && route.method !== "GET",
          victims: victimsOf(gateway, side),
        });
        const answer = await send(gateway, request, keyOf(self, caller));
        const where = `${self.token} ${caller} → ${target} ${request.method} ${request.path}`;
        if (answer.status !== status) problems.push(`${where}: expected ${status}, got ${answer.status} ${answer.text.slice(0, 160)}`);
        if (answer.status >= 400) {
          const error = JSON.parse(answer.text).error;
          if (error?.code !== answer.status || typeof error.message !== "string") problems.push(`${where}: not the error envelope: ${answer.text.slice(0, 160)}`);
        }
        for (const marker of leaks(route.path, request, answer, other, admin && caller === "management")) {
          problems.push(`${where}: the answer carries ${other.token}'s ${marker}`);
        }
      }
    }
  }
  return problems;
}

describe("isolation matrix", () => {
  test("every route of the app is classified in the matrix (new routes must be added)", () => {
    const routes = routesOf(world.gateway).map((route) => `${route.method} ${route.path}`);
    expect(routes.filter((route) => !(route in MATRIX))).toEqual([]);
    expect(Object.keys(MATRIX).filter((route) => !routes.includes(route))).toEqual([]);
    // No workspace's management key reaches a foreign workspace; only the deployment admin does, on the
    // workspace routes and key creation, and each such entry says why.
    const reaches = (rule: Expect | undefined) => typeof rule === "object" && (rule.foreign ?? 404) < 300;
    const entries = Object.entries(MATRIX);
    expect(entries.filter(([, entry]) => (["management", "inference", "intern"] as const).some((kind) => reaches(entry[kind])))).toEqual([]);
    const adminReaches = entries.filter(([, entry]) => reaches(entry.admin));
    expect(adminReaches.map(([route]) => route)).toEqual([
      "POST /api/v1/keys",
      "GET /api/v1/workspaces/:id",
      "PATCH /api/v1/workspaces/:id",
      "GET /api/v1/workspaces/:id/budgets",
      "PUT /api/v1/workspaces/:id/budgets/:interval",
      "DELETE /api/v1/workspaces/:id/budgets/:interval",
      "GET /api/v1/workspaces/:id/members",
      "POST /api/v1/workspaces/:id/members/add",
      "POST /api/v1/workspaces/:id/members/remove",
    ]);
    for (const [, entry] of adminReaches) expect(entry.note).toContain("deployment admin");
  });

  test("alpha's keys against alpha and bravo: the right status, no bravo data, bravo unchanged", async () => {
    const before = await snapshot(world.gateway, world.bravo);
    expect(await runMatrix(world.alpha, world.bravo)).toEqual([]);
    expect(await snapshot(world.gateway, world.bravo)).toEqual(before);
  });

  test("bravo's keys against bravo and alpha: the right status, no alpha data, alpha unchanged", async () => {
    const before = await snapshot(world.gateway, world.alpha);
    expect(await runMatrix(world.bravo, world.alpha)).toEqual([]);
    expect(await snapshot(world.gateway, world.alpha)).toEqual(before);
  });

  test("outside the Intern API programme every intern and vault route is 404, for every key kind", async () => {
    expect(await runMatrix(world.charlie, world.alpha, { programmeOff: true })).toEqual([]);
  });

  test("the deployment admin's keys against its workspace and alpha: only the workspace routes and key creation reach alpha, alpha's data unchanged", async () => {
    const before = await snapshot(world.gateway, world.alpha);
    expect(await runMatrix(world.admin, world.alpha, { admin: true })).toEqual([]);
    expect(await snapshot(world.gateway, world.alpha)).toEqual(before);
  });

  test("alpha's keys against the deployment admin's workspace: the right status, no data of it (not even the admin key's hash), nothing changed", async () => {
    const before = await snapshot(world.gateway, world.admin);
    expect(await runMatrix(world.alpha, world.admin)).toEqual([]);
    expect(await snapshot(world.gateway, world.admin)).toEqual(before);
  });

  test("GET /workspaces: a workspace's management key sees its own workspace only; the deployment admin lists them all", async () => {
    const names = async (key: string) => {
      const listed = await send(world.gateway, { method: "GET", path: "/api/v1/workspaces" }, key);
      expect(listed.status).toBe(200);
      const body = JSON.parse(listed.text);
      return { names: body.data.map((workspace: { name: string }) => workspace.name), total: body.total_count };
    };
    expect(await names(world.alpha.keys.management)).toEqual({ names: ["Workspace alphamark"], total: 1 });
    expect(await names(world.bravo.keys.management)).toEqual({ names: ["Workspace bravomark"], total: 1 });
    const all = await names(world.admin.keys.management);
    expect(all.names).toEqual(expect.arrayContaining(["Workspace adminmark", "Workspace alphamark", "Workspace bravomark", "Workspace charliemark"]));
    // Not readable by the other kinds.
    expect((await send(world.gateway, { method: "GET", path: "/api/v1/workspaces" }, world.alpha.keys.inference)).status).toBe(403);
    expect((await send(world.gateway, { method: "GET", path: "/api/v1/workspaces" }, world.alpha.keys.intern)).status).toBe(404);
  });

  test("control: the markers are in what each scope's own answers return, so their absence elsewhere means something", async () => {
    const { gateway, bravo } = world;
    const reads = ["/keys", "/presets/preset-bravomark", "/interns", "/vault/secrets", "/vault/connections", `/generation?id=${bravo.generationId}`];
    for (const path of reads) {
      const answer = await send(gateway, { method: "GET", path: `/api/v1${path}` }, bravo.keys.management);
      expect({ path, found: markersOf(bravo).some((marker) => answer.text.includes(marker)) }).toEqual({ path, found: true });
    }
    const own = await send(gateway, { method: "GET", path: `/api/v1/vault/interns/${bravo.internId}/secrets` }, bravo.keys.intern);
    expect(own.text).toContain(bravo.internSecretName);
  });
});
