import type { Endpoint } from "../core/catalog-types.ts";

export interface SecretSource {
  /** Bumped on every vault write; cached credentials of an older version are read again. */
  readonly version: number;
  reveal(scope: { workspaceId: string; internId: null }, name: string): { value: string; hosts: string[] | null } | undefined;
}

/**
 * Upstream credentials: the provider's configured key, or a workspace vault secret named by
 * `api_key_secret`, sent only when the secret's hosts include the provider's host. Decrypted secrets are
 * cached per workspace until the vault changes, so the hot path reads no table.
 */
export class CredentialResolver {
  readonly #cache = new Map<string, { version: number; value: string | undefined }>();

  constructor(private readonly vault: SecretSource) {}

  credentialFor(workspaceId: string, endpoint: Endpoint): string | undefined {
    const provider = endpoint.provider;
    if (!provider.apiKeySecret) return provider.apiKey;
    const key = `${workspaceId}\u0000${provider.slug}`;
    const cached = this.#cache.get(key);
    if (cached && cached.version === this.vault.version) return cached.value;
    const secret = this.vault.reveal({ workspaceId, internId: null }, provider.apiKeySecret);
    const host = new URL(provider.baseUrl).hostname.toLowerCase();
    const value = secret && secret.hosts?.includes(host) ? secret.value : provider.apiKey;
    this.#cache.set(key, { version: this.vault.version, value });
    return value;
  }
}
