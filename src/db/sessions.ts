import { and, eq, gt, isNull, lt, or } from "drizzle-orm";
import { nowIso } from "../core/ids.ts";
import type { Backend } from "./backend.ts";
import type { MemberRow, MemberSessionRow, SessionKind } from "./schema-people.ts";

/** How long a session lasts unless the configuration says otherwise: 12 hours. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** A new session's token (shown once, to go in a cookie) and its stored row. */
export interface OpenedSession {
  token: string;
  row: MemberSessionRow;
}

/** A live session, with its member for an OIDC session. */
export interface LiveSession {
  row: MemberSessionRow;
  member: MemberRow | undefined;
}

/** SHA-256 of a session token, hex: what is stored and looked up. */
export function sessionHash(token: string): string {
  return Bun.SHA256.hash(token, "hex");
}

/** 32 random bytes, base64url. */
function newSessionToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/**
 * Signed-in sessions, stored as token hashes. A session is live until it expires or is revoked
 * (sign-out, or its member deprovisioned), and an OIDC session only while its member is active.
 */
export class SessionStore {
  constructor(private readonly backend: Backend) {}

  /** Opens a session for a member (OIDC sign-in) or a management key (`keyHash`). */
  async open(input: { kind: SessionKind; memberId?: string | null; keyHash?: string | null; ttlMs?: number }): Promise<OpenedSession> {
    const token = newSessionToken();
    const now = Date.now();
    const row: MemberSessionRow = {
      hash: sessionHash(token),
      kind: input.kind,
      memberId: input.memberId ?? null,
      keyHash: input.keyHash ?? null,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + (input.ttlMs ?? DEFAULT_SESSION_TTL_MS)).toISOString(),
      revokedAt: null,
    };
    await this.backend.write((db) => db.insert(this.backend.tables.memberSessions).values(row));
    return { token, row };
  }

  /** The live session of a token, or undefined when it is unknown, expired, revoked or its member inactive. */
  async find(token: string): Promise<LiveSession | undefined> {
    const { memberSessions, members } = this.backend.tables;
    const [found] = await this.backend.db
      .select({ row: memberSessions, member: members })
      .from(memberSessions)
      .leftJoin(members, eq(members.id, memberSessions.memberId))
      .where(and(eq(memberSessions.hash, sessionHash(token)), isNull(memberSessions.revokedAt), gt(memberSessions.expiresAt, nowIso())))
      .limit(1);
    if (!found) return undefined;
    const member = found.member ?? undefined;
    if (found.row.memberId !== null && (!member || !member.active)) return undefined;
    return { row: found.row, member };
  }

  /** Ends one session (sign-out); true when it was live. */
  async revoke(token: string): Promise<boolean> {
    const { memberSessions } = this.backend.tables;
    const ended = await this.backend.write((db) =>
      db
        .update(memberSessions)
        .set({ revokedAt: nowIso() })
        .where(and(eq(memberSessions.hash, sessionHash(token)), isNull(memberSessions.revokedAt)))
        .returning({ hash: memberSessions.hash }),
    );
    return ended.length > 0;
  }

  /** Ends every session of a member. */
  async revokeMember(memberId: string): Promise<number> {
    const { memberSessions } = this.backend.tables;
    const ended = await this.backend.write((db) =>
      db
        .update(memberSessions)
        .set({ revokedAt: nowIso() })
        .where(and(eq(memberSessions.memberId, memberId), isNull(memberSessions.revokedAt)))
        .returning({ hash: memberSessions.hash }),
    );
    return ended.length;
  }

  /** Deletes sessions that expired or were revoked before `before` (housekeeping). */
  async prune(before: string): Promise<number> {
    const { memberSessions } = this.backend.tables;
    const removed = await this.backend.write((db) =>
      db
        .delete(memberSessions)
        .where(or(lt(memberSessions.expiresAt, before), lt(memberSessions.revokedAt, before)))
        .returning({ hash: memberSessions.hash }),
    );
    return removed.length;
  }
}
