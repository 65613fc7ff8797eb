import { createHash } from "node:crypto";
import type { CanonicalRequest, ContentPart } from "../core/canonical.ts";

/**
 * Sticky routing: a conversation keeps going to the endpoint that served it, so provider-side prompt
 * caches stay warm. Entries are scoped by workspace × model × conversation and live for a TTL renewed
 * on every success; an error does not renew them.
 */
export class StickySessions {
  readonly #entries = new Map<string, { endpoint: string; expires: number }>();
  #writes = 0;

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(scope: string): string | undefined {
    const entry = this.#entries.get(scope);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.#entries.delete(scope);
      return undefined;
    }
    return entry.endpoint;
  }

  set(scope: string, endpoint: string): void {
    this.#entries.set(scope, { endpoint, expires: this.now() + this.ttlMs });
    if (++this.#writes % 1024 === 0) this.#sweep();
  }

  get size(): number {
    return this.#entries.size;
  }

  #sweep(): void {
    const now = this.now();
    for (const [scope, entry] of this.#entries) if (entry.expires <= now) this.#entries.delete(scope);
  }
}

function text(parts: ContentPart[]): string {
  return parts.map((part) => (part.type === "text" ? part.text : part.type === "image" ? `[image:${part.url.slice(0, 64)}]` : "")).join("");
}

/**
 * The conversation a request belongs to: its `session_id` (body, else `x-session-id`), else its
 * `prompt_cache_key`, else a hash of its first system message and first non-system message.
 */
export function conversationKey(request: CanonicalRequest): string {
  if (request.sessionId) return `session:${request.sessionId}`;
  if (request.promptCacheKey) return `cache:${request.promptCacheKey}`;
  const system = request.messages.find((message) => message.role === "system");
  const first = request.messages.find((message) => message.role !== "system");
  const digest = createHash("sha256")
    .update(system ? text(system.content) : "")
    .update("\u0000")
    .update(first ? `${first.role}:${text(first.content)}` : "")
    .digest("base64url");
  return `hash:${digest}`;
}

export function stickyScope(workspaceId: string, modelId: string, conversation: string): string {
  return `${workspaceId}\u0000${modelId}\u0000${conversation}`;
}
