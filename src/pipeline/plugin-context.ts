/**
 * The context every version 2 plugin hook and server tool receives (src/plugins/contract.ts): the
 * request's identity, the read-only services, the abort signal, the guarded fetcher, routed model
 * calls and the caller's vault credentials.
 */
import type { CanonicalRequest, CanonicalResponse } from "../core/canonical.ts";
import type { PluginContext, PluginServices } from "../plugins/contract.ts";
import { guardedFetch } from "../security/guarded-fetch.ts";
import { checkFetchableUrl } from "../security/url-guard.ts";

/** What a plugin may fetch at most, unless it asks for less. */
export const PLUGIN_FETCH_MAX_BYTES = 10 * 1024 * 1024;
export const PLUGIN_FETCH_TIMEOUT_MS = 15_000;

export interface PluginContextInput {
  services: PluginServices;
  requestId: string;
  generationId: string;
  workspaceId: string;
  keyHash: string;
  signal: AbortSignal;
  state?: unknown;
  /** `security.allow_private_urls`. */
  allowPrivateUrls: boolean;
  /** Runs a model call through routing, accounted in the request's generation. */
  call(model: string, request: Omit<CanonicalRequest, "model">): Promise<CanonicalResponse>;
  /** The caller's vault credential for a host. */
  credentialFor(host: string): string | undefined;
  /** The request's conversation key, computed when first read. */
  conversation: () => string;
}

export function createPluginContext(input: PluginContextInput): PluginContext {
  const { services, signal, allowPrivateUrls } = input;
  return {
    ...services,
    get conversation() {
      return input.conversation();
    },
    requestId: input.requestId,
    generationId: input.generationId,
    workspaceId: input.workspaceId,
    keyHash: input.keyHash,
    signal,
    state: input.state,
    fetch: (url, options = {}) =>
      guardedFetch(url, {
        allowPrivate: allowPrivateUrls,
        maxBytes: Math.min(options.maxBytes ?? PLUGIN_FETCH_MAX_BYTES, PLUGIN_FETCH_MAX_BYTES),
        timeoutMs: options.timeoutMs ?? PLUGIN_FETCH_TIMEOUT_MS,
        signal,
        ...(options.headers ? { headers: options.headers } : {}),
      }),
    checkUrl: async (url) => {
      await checkFetchableUrl(url, { allowPrivate: allowPrivateUrls });
    },
    call: input.call,
    credentialFor: input.credentialFor,
  };
}
