import { randomBytes } from "node:crypto";
import { and, eq, isNull, lt } from "drizzle-orm";
import { nowIso } from "../core/ids.ts";
import { type PkceMethod, verifierMatches } from "../core/pkce.ts";
import type { ApiKeyRow } from "./schema.ts";
import type { Backend } from "./backend.ts";
import type { KeyStore } from "./keys.ts";
import type { OAuthCodeRow } from "./schema-people.ts";

/** How long a code may be exchanged: 10 minutes, as the reference. */
export const CODE_TTL_MS = 10 * 60 * 1000;

/** What a code is created with (the code itself is generated and returned once). */
export type NewOAuthCode = Omit<OAuthCodeRow, "hash" | "createdAt" | "expiresAt" | "usedAt" | "issuedKeyHash">;

/** What the exchange presents besides the code. */
export interface CodeProof {
  verifier?: string | undefined;
  /** The method the app says it used; undefined when it does not say. */
  method?: PkceMethod | null | undefined;
}

/**
 * The outcome of one exchange. Every outcome but `unknown` has burnt the code: `issued` (a new key),
 * `reused` (the code was already exchanged: the key that exchange issued is now disabled), `expired`,
 * `method` (the stated method differs from the consented one), `mismatch` (the verifier does not match),
 * `inactive` (the consenting member was deactivated since).
 */
export type ExchangeOutcome =
  | { kind: "issued"; row: OAuthCodeRow; key: { row: ApiKeyRow; plaintext: string } }
  | { kind: "reused"; row: OAuthCodeRow; disabledKeyHash: string | null }
  | { kind: "expired" | "method" | "mismatch" | "inactive"; row: OAuthCodeRow }
  | { kind: "unknown" };

/** SHA-256 of a code, hex: what is stored and looked up. */
export function codeHash(code: string): string {
  return Bun.SHA256.hash(code, "hex");
}

/**
 * OAuth authorization codes, stored as hashes. A code is exchanged at most once: the exchange marks it
 * used with one conditional UPDATE in the transaction that issues the key, so two concurrent
 * exchanges cannot both succeed, and any failed exchange burns the code too.
 */
export class OAuthCodeStore {
  constructor(
    private readonly backend: Backend,
    private readonly keys: KeyStore,
  ) {}

  /** Stores a new code; returns the code (shown once) and its row. */
  async create(input: NewOAuthCode, ttlMs = CODE_TTL_MS): Promise<{ code: string; row: OAuthCodeRow }> {
    const code = randomBytes(32).toString("base64url");
    const now = Date.now();
    const row: OAuthCodeRow = {
      ...input,
      hash: codeHash(code),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttlMs).toISOString(),
      usedAt: null,
      issuedKeyHash: null,
    };
    await this.backend.write((db) => db.insert(this.backend.tables.oauthCodes).values(row));
    return { code, row };
  }

  /** Exchanges a code for a new inference key in its workspace, created by its member (see ExchangeOutcome). */
  async exchange(code: string, proof: CodeProof): Promise<ExchangeOutcome> {
    const { oauthCodes, apiKeys, members } = this.backend.tables;
    const hash = codeHash(code);
    const outcome = await this.backend.transaction(async (tx): Promise<ExchangeOutcome> => {
      const now = nowIso();
      const [row] = await tx.update(oauthCodes).set({ usedAt: now }).where(and(eq(oauthCodes.hash, hash), isNull(oauthCodes.usedAt))).returning();
      if (!row) {
        const [used] = await tx.select().from(oauthCodes).where(eq(oauthCodes.hash, hash)).limit(1);
        if (!used) return { kind: "unknown" };
        if (used.issuedKeyHash !== null) {
          await tx.update(apiKeys).set({ disabled: true, updatedAt: now }).where(eq(apiKeys.hash, used.issuedKeyHash));
        }
        return { kind: "reused", row: used, disabledKeyHash: used.issuedKeyHash };
      }
      if (row.expiresAt <= now) return { kind: "expired", row };
      if (proof.method !== undefined && proof.method !== row.codeChallengeMethod) return { kind: "method", row };
      if (row.codeChallenge !== null) {
        const method = row.codeChallengeMethod ?? "plain";
        if (proof.verifier === undefined || !verifierMatches(row.codeChallenge, method, proof.verifier)) return { kind: "mismatch", row };
      }
      if (row.memberId !== null) {
        const [member] = await tx.select({ active: members.active }).from(members).where(eq(members.id, row.memberId)).limit(1);
        if (!member?.active) return { kind: "inactive", row };
      }
      const key = await this.keys.create(
        {
          kind: "inference",
          name: row.keyLabel ?? row.appName,
          workspaceId: row.workspaceId,
          limit: row.limit,
          limitReset: row.usageLimitType,
          expiresAt: row.keyExpiresAt,
          creatorUserId: row.memberId,
        },
        tx,
      );
      await tx.update(oauthCodes).set({ issuedKeyHash: key.row.hash }).where(eq(oauthCodes.hash, hash));
      return { kind: "issued", row: { ...row, issuedKeyHash: key.row.hash }, key };
    });
    if (outcome.kind === "reused" && outcome.disabledKeyHash !== null) {
      const disabled = outcome.disabledKeyHash;
      this.keys.forgetWhere((key) => key.hash === disabled);
    }
    return outcome;
  }

  /** Deletes codes that expired before `before` (housekeeping); returns how many. */
  async prune(before: string): Promise<number> {
    const { oauthCodes } = this.backend.tables;
    const removed = await this.backend.write((db) => db.delete(oauthCodes).where(lt(oauthCodes.expiresAt, before)).returning({ hash: oauthCodes.hash }));
    return removed.length;
  }
}
