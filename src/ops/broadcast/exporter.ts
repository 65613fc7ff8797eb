import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { type ActiveDestination, destinationTakes, readsField } from "../../core/broadcast.ts";
import { deadline } from "../../core/deadline.ts";
import type { GenerationRow } from "../../core/generation.ts";
import type { GenerationContent } from "../../core/generation-content.ts";
import type { Logger } from "../../core/log.ts";
import type { Resource } from "@opentelemetry/resources";

/**
 * The span builders and OTLP encoders (the OpenTelemetry SDK, ~200 modules), loaded when a record first
 * goes to a destination: a gateway that exports nothing never loads them.
 */
type Spans = typeof import("./spans.ts");
let spansModule: Promise<Spans> | undefined;
function loadSpans(): Promise<Spans> {
  return (spansModule ??= import("./spans.ts"));
}

/** How the exporter queues, batches and retries. */
export interface ExporterLimits {
  /** Most generation records waiting for the next drain; past it a record is dropped (and counted). */
  maxQueue: number;
  /** Most spans held for one destination (waiting or being retried); past it new ones are dropped. */
  maxPendingSpans: number;
  /** Most spans in one export request. */
  batchSpans: number;
  /** Time between drains. */
  intervalMs: number;
  /** Longest one export request may take. */
  timeoutMs: number;
  /** Failed sends of one batch before it is dropped; each retry waits backoffMs doubled per failure. */
  maxAttempts: number;
  backoffMs: number;
}

export const DEFAULT_EXPORTER_LIMITS: ExporterLimits = {
  maxQueue: 10_000,
  maxPendingSpans: 20_000,
  batchSpans: 512,
  intervalMs: 50,
  timeoutMs: 5000,
  maxAttempts: 4,
  backoffMs: 1000,
};

/** What the exporter needs from the rest of the gateway. */
export interface ExporterDeps {
  /** The workspace's enabled destinations (cached by the caller). */
  destinations: (workspaceId: string) => Promise<ActiveDestination[]>;
  /** True when the workspace is known (cached) to have no enabled destination: its records are not queued. */
  skip?: (workspaceId: string) => boolean;
  /** A key's name, for filter rules on `api_key_name`. */
  keyName: (keyHash: string) => Promise<string | undefined>;
  /** A generation's stored content (when its workspace logs I/O), read at drain time, never on the request path. */
  content?: (workspaceId: string, generationId: string) => Promise<GenerationContent | undefined>;
  logger: Logger;
  /**
   * The deployment-wide destination of the OTEL_EXPORTER_OTLP_* settings: it takes every workspace's
   * records, with its own resource (service.name, OTEL_RESOURCE_ATTRIBUTES).
   */
  environment?: { destination: ActiveDestination; resource: Resource };
  /** The upstream's address of a record (its provider's base URL), for `server.address`. */
  server?: (row: GenerationRow) => { address: string; port: number } | undefined;
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  random?: () => number;
  limits?: Partial<ExporterLimits>;
}

/** Why spans were not exported. */
export type DropReason = "queue" | "failed";

interface Outbox {
  destination: ActiveDestination;
  spans: ReadableSpan[];
  failures: number;
  retryAt: number;
}

/**
 * Exports generation records to broadcast destinations without ever holding up a request: `offer`
 * only appends to a bounded queue; a timer drains it, picks each record's destinations (key
 * allow-list, filter rules, sampling), turns it into spans and sends them in batches per destination.
 * A destination that fails is retried with exponential backoff; what it cannot take is dropped and
 * counted, so a destination that is down costs memory up to a bound and nothing else.
 */
export class BroadcastExporter {
  readonly #deps: ExporterDeps;
  readonly #limits: ExporterLimits;
  readonly #fetch: (url: string, init: RequestInit) => Promise<Response>;
  #queue: GenerationRow[] = [];
  readonly #outboxes = new Map<string, Outbox>();
  readonly #dropped: Record<DropReason, number> = { queue: 0, failed: 0 };
  #exported = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #started = false;
  #draining: Promise<void> | undefined;

  constructor(deps: ExporterDeps) {
    this.#deps = deps;
    this.#limits = { ...DEFAULT_EXPORTER_LIMITS, ...deps.limits };
    this.#fetch = deps.fetch ?? ((url, init) => fetch(url, init));
  }

  /**
   * Lets queued records be drained: a drain is scheduled `intervalMs` after a record arrives (and again
   * while retries are due), never on an idle gateway; the timer does not keep the process alive.
   */
  start(): void {
    this.#started = true;
    if (this.#queue.length > 0) this.#schedule(this.#limits.intervalMs);
  }

  /**
   * Queues a generation record for export; O(1), never throws. A workspace known to have no enabled
   * destination (`skip`) costs nothing more.
   */
  offer(row: GenerationRow): void {
    if (!this.#deps.environment && this.#deps.skip?.(row.workspaceId)) return;
    if (this.#queue.length >= this.#limits.maxQueue) this.#dropped.queue++;
    else this.#queue.push(row);
    this.#schedule(this.#limits.intervalMs);
  }

  #schedule(delayMs: number): void {
    if (this.#timer || !this.#started) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.drain().then(() => this.#again());
    }, delayMs);
    this.#timer.unref?.();
  }

  /** After a drain: more records queued meanwhile, or a retry that becomes due later. */
  #again(): void {
    if (this.#queue.length > 0) return this.#schedule(this.#limits.intervalMs);
    const due = [...this.#outboxes.values()].filter((box) => box.spans.length > 0).map((box) => box.retryAt);
    if (due.length > 0) this.#schedule(Math.max(this.#limits.intervalMs, Math.min(...due) - Date.now()));
  }

  /** Spans dropped so far, by reason. */
  get dropped(): Readonly<Record<DropReason, number>> {
    return this.#dropped;
  }

  /** Spans the destinations accepted so far. */
  get exported(): number {
    return this.#exported;
  }

  /** Runs one drain (or joins the one running): queued records to outboxes, then every outbox due is sent. */
  drain(): Promise<void> {
    this.#draining ??= this.#drainOnce().finally(() => (this.#draining = undefined));
    return this.#draining;
  }

  /** Drains until nothing is queued or waiting to be sent now (retries not yet due stay); for shutdown and tests. */
  async flush(): Promise<void> {
    do await this.drain();
    while (this.#queue.length > 0 || [...this.#outboxes.values()].some((box) => box.spans.length > 0 && box.retryAt <= Date.now()));
  }

  /** Stops the timer and sends what is queued, once. */
  async close(): Promise<void> {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.drain().catch(() => {});
  }

  async #drainOnce(): Promise<void> {
    try {
      const rows = this.#queue;
      this.#queue = [];
      await this.#route(rows);
      await this.#forgetRemoved();
      await Promise.all([...this.#outboxes.values()].map((box) => this.#send(box)));
    } catch (error) {
      this.#deps.logger.warn("broadcast export failed", { error: error instanceof Error ? error.message : String(error) });
    }
  }

  async #route(rows: GenerationRow[]): Promise<void> {
    const byWorkspace = new Map<string, ActiveDestination[]>();
    const random = this.#deps.random ?? Math.random;
    for (const row of rows) {
      let destinations = byWorkspace.get(row.workspaceId);
      if (!destinations) byWorkspace.set(row.workspaceId, (destinations = await this.#destinations(row.workspaceId)));
      if (destinations.length === 0) continue;
      const needsName = destinations.some((destination) => readsField(destination, ["api_key_name"]));
      const keyName = needsName ? await this.#deps.keyName(row.keyHash) : undefined;
      // Content is read when a destination may receive it (not in privacy mode) or a rule matches on it.
      const needsContent = destinations.some((destination) => !destination.privacyMode || readsField(destination, ["input", "output"]));
      const content = needsContent ? await this.#content(row) : undefined;
      for (const destination of destinations) {
        if (!destinationTakes(destination, row, { keyName, content }) || random() >= destination.samplingRate) continue;
        const { generationSpans } = await loadSpans();
        const box = this.#outbox(destination);
        const environment = this.#deps.environment;
        const resource = environment && destination.id === environment.destination.id ? environment.resource : undefined;
        const server = this.#deps.server?.(row);
        const spans = generationSpans(row, destination, content, { ...(resource ? { resource } : {}), ...(server ? { server } : {}) });
        if (box.spans.length + spans.length > this.#limits.maxPendingSpans) this.#dropped.queue += spans.length;
        else box.spans.push(...spans);
      }
    }
  }

  /** A workspace's destinations, and the environment's (OTEL_EXPORTER_OTLP_*) when set. */
  async #destinations(workspaceId: string): Promise<ActiveDestination[]> {
    const own = await this.#deps.destinations(workspaceId);
    return this.#deps.environment ? [...own, this.#deps.environment.destination] : own;
  }

  /** A record's stored content; a failure to read it is logged and the record goes out without it. */
  async #content(row: GenerationRow): Promise<GenerationContent | undefined> {
    try {
      return await this.#deps.content?.(row.workspaceId, row.id);
    } catch (error) {
      this.#deps.logger.warn("broadcast could not read a generation's content", { id: row.id, error: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  }

  /** Spans held for a destination since disabled or deleted are dropped (counted as failed), never sent. */
  async #forgetRemoved(): Promise<void> {
    for (const [id, box] of this.#outboxes) {
      if (id === this.#deps.environment?.destination.id) continue;
      const current = (await this.#deps.destinations(box.destination.workspaceId)).find((destination) => destination.id === id);
      if (current) {
        box.destination = current;
        continue;
      }
      this.#dropped.failed += box.spans.length;
      this.#outboxes.delete(id);
    }
  }

  #outbox(destination: ActiveDestination): Outbox {
    let box = this.#outboxes.get(destination.id);
    if (!box) this.#outboxes.set(destination.id, (box = { destination, spans: [], failures: 0, retryAt: 0 }));
    box.destination = destination;
    return box;
  }

  /** Sends an outbox's spans batch by batch while it is due and the destination accepts them. */
  async #send(box: Outbox): Promise<void> {
    while (box.spans.length > 0 && box.retryAt <= Date.now()) {
      const batch = box.spans.slice(0, this.#limits.batchSpans);
      if (await this.#post(box.destination, batch)) {
        box.spans.splice(0, batch.length);
        box.failures = 0;
        this.#exported += batch.length;
        continue;
      }
      box.failures++;
      if (box.failures >= this.#limits.maxAttempts) {
        box.spans.splice(0, batch.length);
        this.#dropped.failed += batch.length;
        box.failures = 0;
        box.retryAt = 0;
        this.#deps.logger.warn("broadcast destination did not take a batch; dropped", { destination: box.destination.id, spans: batch.length });
        continue;
      }
      box.retryAt = Date.now() + this.#limits.backoffMs * 2 ** (box.failures - 1);
    }
    if (box.spans.length === 0) this.#outboxes.delete(box.destination.id);
  }

  async #post(destination: ActiveDestination, spans: ReadableSpan[]): Promise<boolean> {
    const { body, contentType } = (await loadSpans()).encodeSpans(spans, destination.type === "webhook" ? "json" : destination.encoding);
    // Cleared once the answer is read, so the batch's body is not held for the rest of the timeout (see deadline.ts).
    const timeout = deadline(this.#limits.timeoutMs, undefined, "The export");
    try {
      const response = await this.#fetch(destination.url, {
        method: destination.method,
        headers: { ...destination.headers, "content-type": contentType },
        body,
        signal: timeout.signal,
      });
      await response.arrayBuffer().catch(() => undefined);
      return response.ok;
    } catch {
      return false;
    } finally {
      timeout.clear();
    }
  }
}
