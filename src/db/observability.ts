import { and, count, desc, eq, isNull } from "drizzle-orm";
import type { ActiveDestination, DestinationType, FilterRules } from "../core/broadcast.ts";
import { type DestinationSecrets, exportUrl, type SplitConfig } from "../core/broadcast-config.ts";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { SecretBox } from "../core/secret-box.ts";
import type { Backend } from "./backend.ts";
import type { ObservabilityDestinationRow } from "./schema-groups.ts";

/** At most this many live destinations of one type per workspace (the reference's limit). */
export const MAX_PER_TYPE = 5;

/** The settings of a destination besides its config, as the API names them. */
export interface DestinationSettings {
  name: string;
  enabled: boolean;
  privacyMode: boolean;
  samplingRate: number;
  apiKeyHashes: string[] | null;
  filterRules: FilterRules | null;
  broadcastGenerationCost: boolean;
  broadcastGenerationIdentity: boolean;
  broadcastGenerationRequestContext: boolean;
}

/** A stored destination with its secrets opened (the API masks them; the exporter sends them). */
export interface Destination {
  row: ObservabilityDestinationRow;
  split: SplitConfig;
}

/**
 * Broadcast destinations of each workspace. Secrets (headers, keys) are sealed with the row's id as
 * associated data. The exporter's view of a workspace's enabled destinations is kept in memory and
 * dropped on every write here and on a change another process or replica made.
 */
export class DestinationStore {
  readonly #active = new Map<string, ActiveDestination[]>();

  constructor(
    private readonly backend: Backend,
    private readonly box: SecretBox,
  ) {
    backend.changes.onChange(() => this.#active.clear());
  }

  #open(row: ObservabilityDestinationRow): Destination {
    const secrets = JSON.parse(this.box.open(row.secretsEnc, `observability_destination:${row.id}`)) as DestinationSecrets;
    return { row, split: { config: row.config, secrets } };
  }

  #seal(id: string, secrets: DestinationSecrets): Buffer {
    return this.box.seal(JSON.stringify(secrets), `observability_destination:${id}`);
  }

  /** Creates a destination; 409 when the workspace already has MAX_PER_TYPE of this type. */
  async create(workspaceId: string, type: DestinationType, split: SplitConfig, settings: DestinationSettings): Promise<Destination> {
    const table = this.backend.tables.observabilityDestinations;
    const id = newId();
    const now = nowIso();
    const row = await this.backend.transaction(async (tx) => {
      const [counted] = await tx
        .select({ n: count() })
        .from(table)
        .where(and(eq(table.workspaceId, workspaceId), eq(table.type, type), isNull(table.deletedAt)));
      if (Number(counted?.n ?? 0) >= MAX_PER_TYPE) {
        throw new GatewayError("conflict", `type: this workspace already has ${MAX_PER_TYPE} ${type} destinations (the most allowed)`);
      }
      const [inserted] = await tx
        .insert(table)
        .values({ id, workspaceId, type, ...settings, config: split.config, secretsEnc: this.#seal(id, split.secrets), deletedAt: null, createdAt: now, updatedAt: now })
        .returning();
      return inserted!;
    });
    this.#active.delete(workspaceId);
    return this.#open(row);
  }

  /** Live destinations of the workspace, newest first. */
  async list(workspaceId: string, offset: number, limit: number): Promise<{ rows: Destination[]; total: number }> {
    const table = this.backend.tables.observabilityDestinations;
    const live = and(eq(table.workspaceId, workspaceId), isNull(table.deletedAt));
    const rows = await this.backend.db.select().from(table).where(live).orderBy(desc(table.createdAt), desc(table.id)).limit(limit).offset(offset);
    const [counted] = await this.backend.db.select({ n: count() }).from(table).where(live);
    return { rows: rows.map((row) => this.#open(row)), total: Number(counted?.n ?? 0) };
  }

  /** One live destination of the workspace; undefined for another workspace's or a deleted one. */
  async get(workspaceId: string, id: string): Promise<Destination | undefined> {
    const table = this.backend.tables.observabilityDestinations;
    const [row] = await this.backend.db
      .select()
      .from(table)
      .where(and(eq(table.id, id), eq(table.workspaceId, workspaceId), isNull(table.deletedAt)))
      .limit(1);
    return row ? this.#open(row) : undefined;
  }

  /** Replaces the settings and config of a live destination; undefined when there is none. */
  async update(workspaceId: string, id: string, split: SplitConfig, settings: DestinationSettings): Promise<Destination | undefined> {
    const table = this.backend.tables.observabilityDestinations;
    const [row] = await this.backend.write((db) =>
      db
        .update(table)
        .set({ ...settings, config: split.config, secretsEnc: this.#seal(id, split.secrets), updatedAt: nowIso() })
        .where(and(eq(table.id, id), eq(table.workspaceId, workspaceId), isNull(table.deletedAt)))
        .returning(),
    );
    this.#active.delete(workspaceId);
    return row ? this.#open(row) : undefined;
  }

  /** Soft-deletes a live destination; false when there is none. */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    const table = this.backend.tables.observabilityDestinations;
    const now = nowIso();
    const rows = await this.backend.write((db) =>
      db
        .update(table)
        .set({ deletedAt: now, enabled: false, updatedAt: now })
        .where(and(eq(table.id, id), eq(table.workspaceId, workspaceId), isNull(table.deletedAt)))
        .returning({ id: table.id }),
    );
    this.#active.delete(workspaceId);
    return rows.length > 0;
  }

  /** The workspace's enabled destinations as the exporter sends to them; from memory after the first read. */
  /** The workspace is known, from the cache, to have no enabled destination (false when not cached). */
  knownInactive(workspaceId: string): boolean {
    this.backend.changes.check();
    return this.#active.get(workspaceId)?.length === 0;
  }

  async active(workspaceId: string): Promise<ActiveDestination[]> {
    this.backend.changes.check();
    const cached = this.#active.get(workspaceId);
    if (cached) return cached;
    const table = this.backend.tables.observabilityDestinations;
    const rows = await this.backend.db
      .select()
      .from(table)
      .where(and(eq(table.workspaceId, workspaceId), eq(table.enabled, true), isNull(table.deletedAt)));
    const found = rows.map((row) => toActive(this.#open(row)));
    this.#active.set(workspaceId, found);
    return found;
  }
}

function toActive({ row, split }: Destination): ActiveDestination {
  const type = row.type as DestinationType;
  const headers = { ...split.secrets.headers };
  if (type === "langfuse") {
    headers.Authorization = `Basic ${Buffer.from(`${split.config.publicKey}:${split.secrets.secretKey ?? ""}`).toString("base64")}`;
  }
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    type,
    url: exportUrl(type, split.config),
    method: split.config.method === "PUT" ? "PUT" : "POST",
    encoding: split.config.encoding === "protobuf" ? "protobuf" : "json",
    headers,
    samplingRate: row.samplingRate,
    apiKeyHashes: row.apiKeyHashes,
    filterRules: row.filterRules,
    privacyMode: row.privacyMode,
    includeCost: row.broadcastGenerationCost,
    includeIdentity: row.broadcastGenerationIdentity,
    includeRequestContext: row.broadcastGenerationRequestContext,
  };
}
