/** AuditLogStore on both backends: the chain holds under concurrent appends (two replicas at once), tampering is found, entries cannot be changed. */
import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { ChainVerifier, type ChainReport, entryHash } from "../../src/core/audit-chain.ts";
import { createLogger } from "../../src/core/log.ts";
import { type AuditInput, AuditLogStore, auditEntryJson } from "../../src/db/audit-log.ts";
import type { Backend } from "../../src/db/backend.ts";
import { DIALECTS, databases } from "./backends.ts";

const quiet = createLogger("error", () => {});

function input(action: string, index: number): AuditInput {
  return {
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    actorKind: "key",
    actorId: `hash-${index % 3}`,
    workspaceId: index % 2 === 0 ? "ws-even" : "ws-odd",
    action,
    target: `target-${index}`,
    outcome: 200,
    ip: "192.0.2.1",
    requestId: `req-${index}`,
  };
}

async function verify(store: AuditLogStore): Promise<ChainReport> {
  const verifier = new ChainVerifier();
  for await (const row of store.entries(7)) verifier.check(auditEntryJson(row));
  return verifier.report();
}

/** Runs raw SQL as the database's owner would (the tests' own access, not the gateway's). */
async function raw(backend: Backend, statement: string): Promise<void> {
  if (backend.pg) await backend.pg.unsafe(statement);
  else backend.sqlite!.exec(statement);
}

describe.each(DIALECTS)("audit log on %s", (dialect) => {
  const open = databases(dialect);

  test("concurrent appends keep one unbroken chain (on PostgreSQL from two backends at once, as two replicas)", async () => {
    const database = await open();
    const one = new AuditLogStore(database.backend, quiet);
    // One SQLite file has one gateway: its writers are this process's (BEGIN IMMEDIATE guards the file).
    const two = new AuditLogStore(dialect === "postgres" ? await database.another() : database.backend, quiet);
    await Promise.all(
      Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? one : two).append([input(index % 2 === 0 ? "POST /a" : "POST /b", index), input("POST /c", index)])),
    );
    // The queued path too: entries recorded by both at once.
    for (let index = 0; index < 30; index++) (index % 2 === 0 ? one : two).record(input("DELETE /d", index));
    await Promise.all([one.flush(), two.flush()]);
    expect(one.failed + two.failed).toBe(0);
    expect(await verify(one)).toEqual({ ok: true, entries: 110, first_bad_seq: null });
    const seqs: number[] = [];
    for await (const row of two.entries()) seqs.push(row.seq);
    expect(seqs).toEqual(Array.from({ length: 110 }, (_, index) => index + 1));
  });

  test("entries cannot be updated or deleted; a tampered or removed entry is found with its seq", async () => {
    const { backend } = await open();
    const store = new AuditLogStore(backend, quiet);
    await store.append(Array.from({ length: 6 }, (_, index) => input("POST /keys", index)));
    await expect(raw(backend, "UPDATE audit_log SET outcome = 500 WHERE seq = 4")).rejects.toThrow(/append-only/);
    await expect(raw(backend, "DELETE FROM audit_log WHERE seq = 4")).rejects.toThrow(/append-only/);
    expect(await verify(store)).toEqual({ ok: true, entries: 6, first_bad_seq: null });
    // Someone with the database owner's rights removes the protection and edits an entry.
    await raw(backend, dialect === "postgres" ? "ALTER TABLE audit_log DISABLE TRIGGER USER" : "DROP TRIGGER audit_log_no_update");
    await raw(backend, "UPDATE audit_log SET outcome = 500 WHERE seq = 4");
    expect(await verify(store)).toEqual({ ok: false, entries: 6, first_bad_seq: 4 });
    // Rewriting the edited entry's hash too breaks the next entry's link instead.
    const [fourth] = await backend.db.select().from(backend.tables.auditLog).where(eq(backend.tables.auditLog.seq, 4));
    await raw(backend, `UPDATE audit_log SET hash = '${entryHash(auditEntryJson(fourth!))}' WHERE seq = 4`);
    expect(await verify(store)).toEqual({ ok: false, entries: 6, first_bad_seq: 5 });
    if (dialect === "sqlite") await raw(backend, "DROP TRIGGER audit_log_no_delete");
    await raw(backend, "DELETE FROM audit_log WHERE seq >= 4");
    await raw(backend, "DELETE FROM audit_log WHERE seq = 2");
    expect(await verify(store)).toEqual({ ok: false, entries: 2, first_bad_seq: 3 });
  });

  test("lists newest first with filters and a cursor", async () => {
    const { backend } = await open();
    const store = new AuditLogStore(backend, quiet);
    await store.append(Array.from({ length: 9 }, (_, index) => input(index < 5 ? "POST /keys" : "PATCH /keys/:hash", index)));
    const page = await store.list({ action: "POST /keys", limit: 3 });
    expect(page.rows.map((row) => row.seq)).toEqual([5, 4, 3]);
    expect(page.more).toBe(true);
    expect((await store.list({ action: "POST /keys", limit: 3, before: 3 })).rows.map((row) => row.seq)).toEqual([2, 1]);
    expect((await store.list({ actorKind: "key", actorId: "hash-0", workspaceId: "ws-even", limit: 10 })).rows.map((row) => row.seq)).toEqual([7, 1]);
    const window = await store.list({ from: "2026-01-01T00:00:02.000Z", to: "2026-01-01T00:00:04.000Z", limit: 10 });
    expect(window.rows.map((row) => row.seq)).toEqual([5, 4, 3]);
    expect(window.more).toBe(false);
  });
});
