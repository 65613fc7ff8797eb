import { and, asc, eq } from "drizzle-orm";
import { newId, nowIso } from "../core/ids.ts";
import type { SecretBox } from "../core/secret-box.ts";
import type { Db } from "./client.ts";
import { type ConnectionRow, connections, internConnectionSettings } from "./schema.ts";

export interface InternConnectionSetting {
  turnedOff: boolean;
  hidden: boolean;
}

function associatedData(workspaceId: string, key: string): string {
  return `connection\u0000${workspaceId}\u0000${key}`;
}

/** Connections of a workspace (credentials sealed), with per-intern "turned off" and "hidden" settings. */
export class ConnectionStore {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  /** Stores a connection, or replaces the credentials of an existing one. */
  put(workspaceId: string, key: string, input: { credentials: string; enabled?: boolean | undefined }): ConnectionRow {
    const now = nowIso();
    const sealed = this.box.seal(input.credentials, associatedData(workspaceId, key));
    return this.db.transaction(
      (tx) => {
        const existing = tx
          .select({ id: connections.id })
          .from(connections)
          .where(and(eq(connections.workspaceId, workspaceId), eq(connections.key, key)))
          .get();
        if (existing) {
          return tx
            .update(connections)
            .set({
              credentialsEnc: sealed,
              ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
              updatedAt: now,
            })
            .where(eq(connections.id, existing.id))
            .returning()
            .get()!;
        }
        return tx
          .insert(connections)
          .values({
            id: newId(),
            workspaceId,
            key,
            credentialsEnc: sealed,
            enabled: input.enabled ?? true,
            lastTestOk: null,
            lastTestAt: null,
            lastTestMessage: null,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
          .get();
      },
      { behavior: "immediate" },
    );
  }

  get(workspaceId: string, key: string): ConnectionRow | undefined {
    return this.db
      .select()
      .from(connections)
      .where(and(eq(connections.workspaceId, workspaceId), eq(connections.key, key)))
      .get();
  }

  list(workspaceId: string): ConnectionRow[] {
    return this.db
      .select()
      .from(connections)
      .where(eq(connections.workspaceId, workspaceId))
      .orderBy(asc(connections.key))
      .all();
  }

  setEnabled(workspaceId: string, key: string, enabled: boolean): ConnectionRow | undefined {
    return this.db
      .update(connections)
      .set({ enabled, updatedAt: nowIso() })
      .where(and(eq(connections.workspaceId, workspaceId), eq(connections.key, key)))
      .returning()
      .get();
  }

  recordTest(workspaceId: string, key: string, result: { ok: boolean; message: string | null }): ConnectionRow | undefined {
    const now = nowIso();
    return this.db
      .update(connections)
      .set({ lastTestOk: result.ok, lastTestAt: now, lastTestMessage: result.message, updatedAt: now })
      .where(and(eq(connections.workspaceId, workspaceId), eq(connections.key, key)))
      .returning()
      .get();
  }

  delete(workspaceId: string, key: string): boolean {
    return (
      this.db
        .delete(connections)
        .where(and(eq(connections.workspaceId, workspaceId), eq(connections.key, key)))
        .returning({ id: connections.id }).all().length > 0
    );
  }

  setForIntern(connectionId: string, internId: string, patch: Partial<InternConnectionSetting>): InternConnectionSetting {
    const now = nowIso();
    return this.db.transaction(
      (tx) => {
        const where = and(
          eq(internConnectionSettings.internId, internId),
          eq(internConnectionSettings.connectionId, connectionId),
        );
        const existing = tx.select().from(internConnectionSettings).where(where).get();
        const next = {
          turnedOff: patch.turnedOff ?? existing?.turnedOff ?? false,
          hidden: patch.hidden ?? existing?.hidden ?? false,
        };
        if (existing) tx.update(internConnectionSettings).set({ ...next, updatedAt: now }).where(where).run();
        else tx.insert(internConnectionSettings).values({ internId, connectionId, ...next, updatedAt: now }).run();
        return next;
      },
      { behavior: "immediate" },
    );
  }

  settingFor(connectionId: string, internId: string): InternConnectionSetting {
    const row = this.db
      .select()
      .from(internConnectionSettings)
      .where(and(eq(internConnectionSettings.internId, internId), eq(internConnectionSettings.connectionId, connectionId)))
      .get();
    return { turnedOff: row?.turnedOff ?? false, hidden: row?.hidden ?? false };
  }

  /**
   * Keys of the connections an intern can use: stored, enabled, and neither turned off nor hidden for
   * it. The last test result plays no part.
   */
  usableBy(workspaceId: string, internId: string): string[] {
    const rows = this.db
      .select({
        key: connections.key,
        turnedOff: internConnectionSettings.turnedOff,
        hidden: internConnectionSettings.hidden,
      })
      .from(connections)
      .leftJoin(
        internConnectionSettings,
        and(eq(internConnectionSettings.connectionId, connections.id), eq(internConnectionSettings.internId, internId)),
      )
      .where(and(eq(connections.workspaceId, workspaceId), eq(connections.enabled, true)))
      .orderBy(asc(connections.key))
      .all();
    return rows.filter((row) => !row.turnedOff && !row.hidden).map((row) => row.key);
  }

  /** The stored credentials, for use by the gateway itself. Never rendered in a response. */
  reveal(row: ConnectionRow): string | null {
    return row.credentialsEnc ? this.box.open(row.credentialsEnc, associatedData(row.workspaceId, row.key)) : null;
  }
}
