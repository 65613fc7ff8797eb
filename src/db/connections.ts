import { and, asc, eq } from "drizzle-orm";
import { newId, nowIso } from "../core/ids.ts";
import type { SecretBox } from "../core/secret-box.ts";
import type { Backend } from "./backend.ts";
import { upsertRetried } from "./errors.ts";
import type { ConnectionRow } from "./schema.ts";
import { SealedStore } from "./sealed-store.ts";

export interface InternConnectionSetting {
  turnedOff: boolean;
  hidden: boolean;
}

function associatedData(workspaceId: string, key: string): string {
  return `connection\u0000${workspaceId}\u0000${key}`;
}

/** The plaintext credentials of a stored connection row, or null when it has none; throws for another key. */
export function openCredentials(box: SecretBox, row: ConnectionRow): string | null {
  return row.credentialsEnc ? box.open(row.credentialsEnc, associatedData(row.workspaceId, row.key)) : null;
}

/** Connections of a workspace (credentials sealed), with per-intern "turned off" and "hidden" settings. */
export class ConnectionStore extends SealedStore {
  constructor(backend: Backend, box: SecretBox) {
    super(backend, box, "connections");
  }

  /** Stores a connection, or replaces the credentials of an existing one. */
  put(workspaceId: string, key: string, input: { credentials: string; enabled?: boolean | undefined }): Promise<ConnectionRow> {
    const { connections } = this.backend.tables;
    const now = nowIso();
    const sealed = this.box.seal(input.credentials, associatedData(workspaceId, key));
    const write = () =>
      this.backend.transaction(async (tx) => {
        const [existing] = await tx
          .select({ id: connections.id })
          .from(connections)
          .where(and(eq(connections.workspaceId, workspaceId), eq(connections.key, key)))
          .limit(1);
        if (existing) {
          const [updated] = await tx
            .update(connections)
            .set({
              credentialsEnc: sealed,
              ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
              updatedAt: now,
            })
            .where(eq(connections.id, existing.id))
            .returning();
          return updated!;
        }
        const [inserted] = await tx
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
          .returning();
        return inserted!;
      });
    return this.writes.around(() => upsertRetried(write));
  }

  async get(workspaceId: string, key: string): Promise<ConnectionRow | undefined> {
    const { connections } = this.backend.tables;
    const rows = await this.backend.db
      .select()
      .from(connections)
      .where(and(eq(connections.workspaceId, workspaceId), eq(connections.key, key)))
      .limit(1);
    return rows[0];
  }

  async list(workspaceId: string): Promise<ConnectionRow[]> {
    const { connections } = this.backend.tables;
    return this.backend.db
      .select()
      .from(connections)
      .where(eq(connections.workspaceId, workspaceId))
      .orderBy(asc(connections.key));
  }

  setEnabled(workspaceId: string, key: string, enabled: boolean): Promise<ConnectionRow | undefined> {
    const { connections } = this.backend.tables;
    return this.writes.around(async () => {
      const [row] = await this.backend.write((db) => db
        .update(connections)
        .set({ enabled, updatedAt: nowIso() })
        .where(and(eq(connections.workspaceId, workspaceId), eq(connections.key, key)))
        .returning());
      return row;
    });
  }

  async recordTest(workspaceId: string, key: string, result: { ok: boolean; message: string | null }): Promise<ConnectionRow | undefined> {
    const { connections } = this.backend.tables;
    const now = nowIso();
    const [row] = await this.backend.write((db) => db
      .update(connections)
      .set({ lastTestOk: result.ok, lastTestAt: now, lastTestMessage: result.message, updatedAt: now })
      .where(and(eq(connections.workspaceId, workspaceId), eq(connections.key, key)))
      .returning());
    return row;
  }

  delete(workspaceId: string, key: string): Promise<boolean> {
    const { connections } = this.backend.tables;
    return this.writes.around(async () => {
      const removed = await this.backend.write((db) => db
        .delete(connections)
        .where(and(eq(connections.workspaceId, workspaceId), eq(connections.key, key)))
        .returning({ id: connections.id }));
      return removed.length > 0;
    });
  }

  setForIntern(connectionId: string, internId: string, patch: Partial<InternConnectionSetting>): Promise<InternConnectionSetting> {
    const { internConnectionSettings } = this.backend.tables;
    const now = nowIso();
    const write = () =>
      this.backend.transaction(async (tx) => {
        const where = and(
          eq(internConnectionSettings.internId, internId),
          eq(internConnectionSettings.connectionId, connectionId),
        );
        const [existing] = await tx.select().from(internConnectionSettings).where(where).limit(1);
        const next = {
          turnedOff: patch.turnedOff ?? existing?.turnedOff ?? false,
          hidden: patch.hidden ?? existing?.hidden ?? false,
        };
        if (existing) await tx.update(internConnectionSettings).set({ ...next, updatedAt: now }).where(where);
        else await tx.insert(internConnectionSettings).values({ internId, connectionId, ...next, updatedAt: now });
        return next;
      });
    return upsertRetried(write);
  }

  async settingFor(connectionId: string, internId: string): Promise<InternConnectionSetting> {
    const { internConnectionSettings } = this.backend.tables;
    const [row] = await this.backend.db
      .select()
      .from(internConnectionSettings)
      .where(and(eq(internConnectionSettings.internId, internId), eq(internConnectionSettings.connectionId, connectionId)))
      .limit(1);
    return { turnedOff: row?.turnedOff ?? false, hidden: row?.hidden ?? false };
  }

  /**
   * Keys of the connections an intern can use: stored, enabled, and neither turned off nor hidden for
   * it. The last test result plays no part.
   */
  async usableBy(workspaceId: string, internId: string): Promise<string[]> {
    const { connections, internConnectionSettings } = this.backend.tables;
    const rows = await this.backend.db
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
      .orderBy(asc(connections.key));
    return rows.filter((row) => !row.turnedOff && !row.hidden).map((row) => row.key);
  }

  /** The stored credentials, for use by the gateway itself. Never rendered in a response. */
  reveal(row: ConnectionRow): string | null {
    return openCredentials(this.box, row);
  }
}
