import type { Endpoint, Provider } from "../core/catalog-types.ts";

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
  /** Secret name → value and hosts, for every secret a provider names. */
  values: Map<string, { value: string; hosts: string[] | null } | undefined>;
  /** Host → credential of the workspace's enabled connection `mcp:<host>`. */
  hosts: Map<string, string | undefined>;
}

/**
 * Upstream credentials: the provider's configured key, or a workspace vault secret named by
 * `api_key_secret`, sent only when the secret's hosts include the provider's host; and the credential
 * of a host a plugin calls (the workspace's enabled connection for it). A workspace's credentials are
 * read once (`prepare`, when a request is authenticated or a video job polled) and kept until the vault
 * or the connections change, so the hot path reads no table and the pipeline reads them synchronously.
 */
export class CredentialResolver {
  readonly #snapshots = new Map<string, Snapshot>();
  readonly #names: string[];

  constructor(
    private readonly vault: SecretSource,
    private readonly connections: ConnectionSource<any>,
    providers: Iterable<Provider>,
  ) {
    this.#names = [...new Set([...providers].flatMap((provider) => (provider.apiKeySecret ? [provider.apiKeySecret] : [])))];
  }

  #current(workspaceId: string): Snapshot | undefined {
    const snapshot = this.#snapshots.get(workspaceId);
    return snapshot && snapshot.secrets === this.vault.version && snapshot.connections === this.connections.version ? snapshot : undefined;
  }

  /** Reads the workspace's credentials unless what is kept is current. */
  async prepare(workspaceId: string): Promise<void> {
    if (this.#current(workspaceId)) return;
    const versions = { secrets: this.vault.version, connections: this.connections.version };
    const values = new Map<string, { value: string; hosts: string[] | null } | undefined>();
    for (const name of this.#names) values.set(name, await this.vault.reveal({ workspaceId, internId: null }, name));
    const hosts = new Map<string, string | undefined>();
    for (const row of await this.connections.list(workspaceId)) {
      if (row.key.startsWith("mcp:")) hosts.set(row.key.slice(4), row.enabled ? (this.connections.reveal(row) ?? undefined) : undefined);
    }
    // A write while reading leaves the versions moved: the next request reads again.
    this.#snapshots.set(workspaceId, { ...versions, values, hosts });
  }

  /** The credential for a provider in a workspace: from the config, or a vault secret (after `prepare`). */
  credentialFor(workspaceId: string, endpoint: Endpoint): string | undefined {
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
