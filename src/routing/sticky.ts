import type { CanonicalRequest, ContentPart } from "../core/canonical.ts";
import { ExpiringMap, type ExpiringMapStats } from "./expiring-map.ts";

/**
 * Sticky routing: a conversation keeps going to the endpoint that served it, so provider-side prompt
 * caches stay warm. Entries are scoped by workspace × model × conversation and live for a TTL renewed
 * on every success; an error does not renew them. Conversations are chosen by clients (`session_id`),
 * so the entries are bounded: past `maxEntries` the least recently renewed one is dropped.
 */
export class StickySessions {
  readonly #entries: ExpiringMap<string>;
  #observer: ((scope: string, endpoint: string) => void) | undefined;

  constructor(
    private readonly options: { maxEntries: number; ttlMs: number } = { maxEntries: 100_000, ttlMs: 10 * 60_000 },
    now: () => number = Date.now,
  ) {
    this.#entries = new ExpiringMap(options.maxEntries, now);
  }

  get(scope: string): string | undefined {
    return this.#entries.get(scope);
  }

  set(scope: string, endpoint: string): void {
    const observer = this.#observer;
    const changed = observer !== undefined && this.#entries.get(scope) !== endpoint;
    this.#entries.set(scope, endpoint, this.options.ttlMs);
    if (changed) observer(scope, endpoint);
  }

  /** Tells `observer` whenever this replica points a scope at another endpoint (not when it renews one). */
  observe(observer: (scope: string, endpoint: string) => void): void {
    this.#observer = observer;
  }

  /** An assignment another replica made: kept like our own, not told to the observer again. */
  setRemote(scope: string, endpoint: string): void {
    this.#entries.set(scope, endpoint, this.options.ttlMs);
  }

  get size(): number {
    return this.#entries.size;
  }

  get stats(): ExpiringMapStats {
    return this.#entries.stats;
  }
}

function text(parts: ContentPart[]): string {
  if (parts.length === 1 && parts[0]!.type === "text") return parts[0]!.text;
  return parts.map((part) => (part.type === "text" ? part.text : part.type === "image" ? `[image:${part.url.slice(0, 64)}]` : "")).join("");
}

/**
 * Characters of each opening message that are hashed: enough to tell conversations apart. A longer
 * message is hashed as its first characters and its length, so the cost of the key is bounded.
 */
export const HASHED_PREFIX = 32 * 1024;

function bounded(value: string): string {
  return value.length <= HASHED_PREFIX ? value : `${value.slice(0, HASHED_PREFIX)}\u0000${value.length}`;
}

/**
 * The conversation a request belongs to: its `session_id` (body, else `x-session-id`), else its
 * `prompt_cache_key`, else a hash of its first system message and first non-system message (at most
 * HASHED_PREFIX characters of each, with the length of a longer one).
 */
export function conversationKey(request: CanonicalRequest): string {
  if (request.sessionId) return `session:${request.sessionId}`;
  if (request.promptCacheKey) return `cache:${request.promptCacheKey}`;
  const system = request.messages.find((message) => message.role === "system");
  const first = request.messages.find((message) => message.role !== "system");
  const opening = `${system ? bounded(text(system.content)) : ""}\u0000${first ? `${first.role}:${bounded(text(first.content))}` : ""}`;
  return `hash:${Bun.SHA256.hash(opening, "base64url")}`;
}

/** Computes a request's conversation key at most once, and only when something asks for it. */
export function lazyConversationKey(request: CanonicalRequest): () => string {
  let key: string | undefined;
  return () => (key ??= conversationKey(request));
}

export function stickyScope(workspaceId: string, modelId: string, conversation: string): string {
  return `${workspaceId}\u0000${modelId}\u0000${conversation}`;
}

/**
 * The sticky-session scope of each routed model, made on first use: the conversation key (a hash of
 * the opening messages) is computed only when a sticky entry is looked up or remembered.
 */
export class StickyScopes {
  #scopes: Map<string, string> | undefined;

  constructor(
    private readonly modelIds: readonly string[],
    private readonly scopeOf: (modelId: string) => string,
  ) {}

  get size(): number {
    return this.modelIds.length;
  }

  get(modelId: string): string | undefined {
    return this.#all().get(modelId);
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.#all()[Symbol.iterator]();
  }

  #all(): Map<string, string> {
    return (this.#scopes ??= new Map(this.modelIds.map((modelId) => [modelId, this.scopeOf(modelId)])));
  }
}
