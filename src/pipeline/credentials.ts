import type { Endpoint, Provider } from "../core/catalog-types.ts";

/** A BYOK credential as routing needs it: its row's allow-lists and order, and the secret. */
export interface ByokCredential {
  row: {
    id: string;
    provider: string;
    isFallback: boolean;
    allowedApiKeyHashes: string[] | null;
    allowedModels: string[] | null;
    allowedUserIds: string[] | null;
  };
  key: string;
}

/** Where a workspace's BYOK credentials are read: live and enabled ones, in sort order (fallback ones last). */
export interface ByokSource {
  /** Bumped on every BYOK write (here or elsewhere). */
  readonly version: number;
  reveal(workspaceId: string): Promise<ByokCredential[]>;
}

/** Who a request's credentials are chosen for (the BYOK allow-lists). */
export interface CredentialUser {
  keyHash: string;
  userId?: string | null | undefined;
}

/** Where a workspace's secrets are read: the vault. */
export interface SecretSource {
  /** Bumped on every vault write (here or elsewhere); a snapshot of an older version is read again. */
  readonly version: number;
  reveal(scope: { workspaceId: string; internId: null }, name: string): Promise<{ value: string; hosts: string[] | null } | undefined>;
}

/** Where a workspace's connections are read (an MCP server's credential is its connection `mcp:<host>`). */
export interface ConnectionSource<Row extends { key: string; enabled: boolean }> {
  /** Bumped on every connection write (here or elsewhere). */
  readonly version: number;
  list(workspaceId: string): Promise<Row[]>;
  reveal(row: Row): string | null;
}

interface Snapshot {
  secrets: number;
  connections: number;
  byok: number;
  /** Provider slug → the workspace's usable BYOK credentials for it, in the order they are tried. */
  byokKeys: Map<string, ByokCredential[]>;
  /** Secret name → value and hosts, for every secret a provider names. */
  values: Map<string, { value: string; hosts: string[] | null } | undefined>;
  /** Host → credential of the workspace's enabled connection `mcp:<host>`. */
  hosts: Map<string, string | undefined>;
}

/**
 * Upstream credentials: a workspace's BYOK credentials for the provider (allowed for the key, its user
 * and the model; each one an attempt of its own, see byok-plan.ts), which replace the configured key;
 * else the provider's configured key, or a workspace vault secret named by `api_key_secret`, sent only
 * when the secret's hosts include the provider's host; and the credential
 * of a host a plugin calls (the workspace's enabled connection for it). A workspace's credentials are
 * read once (`prepare`, when a request is authenticated or a video job polled) and kept until the vault
 * or the connections change, so the hot path reads no table and the pipeline reads them synchronously.
 */
export class CredentialResolver {
  readonly #snapshots = new Map<string, Snapshot>();
  #names: string[];

  constructor(
    private readonly vault: SecretSource,
    private readonly connections: ConnectionSource<any>,
    providers: Iterable<Provider>,
    private readonly byok?: ByokSource,
  ) {
    this.#names = secretNames(providers);
  }

  /** The providers changed (a config reload): their vault secret names are read again, for every workspace. */
  setProviders(providers: Iterable<Provider>): void {
    this.#names = secretNames(providers);
    this.#snapshots.clear();
  }

  #current(workspaceId: string): Snapshot | undefined {
    const snapshot = this.#snapshots.get(workspaceId);
    return snapshot && snapshot.secrets === this.vault.version && snapshot.connections === this.connections.version && snapshot.byok === (this.byok?.version ?? 0)
      ? snapshot : undefined;
  }

  /** Whether what is kept of the workspace's credentials is current (prepare would read nothing). */
  isPrepared(workspaceId: string): boolean {
    return this.#current(workspaceId) !== undefined;
  }

  /** Reads the workspace's credentials unless what is kept is current. */
  async prepare(workspaceId: string): Promise<void> {
    if (this.#current(workspaceId)) return;
    const versions = { secrets: this.vault.version, connections: this.connections.version, byok: this.byok?.version ?? 0 };
    const values = new Map<string, { value: string; hosts: string[] | null } | undefined>();
    for (const name of this.#names) values.set(name, await this.vault.reveal({ workspaceId, internId: null }, name));
    const hosts = new Map<string, string | undefined>();
    for (const row of await this.connections.list(workspaceId)) {
      if (row.key.startsWith("mcp:")) hosts.set(row.key.slice(4), row.enabled ? (this.connections.reveal(row) ?? undefined) : undefined);
    }
    const byokKeys = new Map<string, ByokCredential[]>();
    for (const credential of (await this.byok?.reveal(workspaceId)) ?? []) {
      const list = byokKeys.get(credential.row.provider) ?? [];
      byokKeys.set(credential.row.provider, [...list, credential]);
    }
    // A write while reading leaves the versions moved: the next request reads again.
    this.#snapshots.set(workspaceId, { ...versions, byokKeys, values, hosts });
  }

  /**
   * The BYOK credentials a request may use on a provider (after `prepare`): enabled, allowed for the
   * key, its user and the model; prioritised ones in sort order, then fallback ones.
   */
  byokFor(workspaceId: string, provider: string, user: CredentialUser, modelId: string): ReadonlyArray<{ id: string; key: string }> {
    const keys = this.#snapshot(workspaceId).byokKeys.get(provider);
    // Most providers of most workspaces have none: nothing to filter, and nothing made per request.
    if (keys === undefined) return NO_CREDENTIALS;
    return keys
      .filter(({ row }) => allowed(row.allowedApiKeyHashes, user.keyHash) && allowed(row.allowedModels, modelId) && allowed(row.allowedUserIds, user.userId))
      .map(({ row, key }) => ({ id: row.id, key }));
  }

  /** The credential for an endpoint in a workspace: its BYOK one, else from the config, or a vault secret (after `prepare`). */
  credentialFor(workspaceId: string, endpoint: Endpoint): string | undefined {
    if (endpoint.credential) return endpoint.credential.key;
    const provider = endpoint.provider;
    if (!provider.apiKeySecret) return provider.apiKey;
    const secret = this.#snapshot(workspaceId).values.get(provider.apiKeySecret);
    const host = new URL(provider.baseUrl).hostname.toLowerCase();
    return secret && secret.hosts?.includes(host) ? secret.value : provider.apiKey;
  }

  /** The workspace's enabled connection credential for a host (after `prepare`). */
  hostCredential(workspaceId: string, host: string): string | undefined {
    return this.#snapshot(workspaceId).hosts.get(host);
  }

  /** What `prepare` read; a snapshot overtaken by a write meanwhile still serves the request it was read for. */
  #snapshot(workspaceId: string): Snapshot {
    const snapshot = this.#snapshots.get(workspaceId);
    if (!snapshot) throw new Error(`credentials of workspace ${workspaceId} were not prepared`);
    return snapshot;
  }
}

const NO_CREDENTIALS: ReadonlyArray<{ id: string; key: string }> = Object.freeze([]);

/** A credential's restriction: none (null), or a list that holds the value. */
function allowed(list: string[] | null, value: string | null | undefined): boolean {
  return list === null || (value != null && list.includes(value));
}

/** The vault secret names providers take their keys from. */
function secretNames(providers: Iterable<Provider>): string[] {
  return [...new Set([...providers].flatMap((provider) => (provider.apiKeySecret ? [provider.apiKeySecret] : [])))];
}
