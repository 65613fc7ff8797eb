import { FlushTimer } from "./flush-timer.ts";
import type { SQL } from "bun";
import { describeError, type Logger } from "../core/log.ts";

/**
 * Team mode's routing bus: what one replica learns while routing, told to the others over PostgreSQL's
 * LISTEN/NOTIFY on `roundhouse_routing`. It carries sticky assignments (a scope pointed at another
 * endpoint) and upstream health (successes, failures and cool-downs per endpoint), so that an upstream
 * one replica finds failing is avoided by all of them within a second. Observations are gathered for
 * `intervalMs` and sent together, split so that each payload stays under PostgreSQL's 8000-byte limit.
 * Receivers apply them as remote observations, which are never announced again; each replica ignores
 * its own messages. Delivery is best effort: what a replica misses while disconnected is lost, like the
 * in-memory state of a replica that restarts.
 */

/** The NOTIFY channel the replicas share routing news on. */
export const ROUTING_CHANNEL = "roundhouse_routing";

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7_900;

/** One NOTIFY payload: the sender, sticky assignments [scope, endpoint], health [endpoint, successes, failures, cool-for ms]. */
interface Message {
  r: string;
  s: [string, string][];
  h: [string, number, number, number][];
}

interface PendingHealth {
  successes: number;
  failures: number;
  /** When the endpoint's cool-down ends, by the health clock (0: none). */
  coolUntil: number;
}

/** What one replica saw of an endpoint (routing/health.ts's HealthObservation). */
export interface HealthObservation {
  successes: number;
  failures: number;
  coolForMs?: number | undefined;
}

/** What the bus needs of a replica's health statistics (routing/health.ts's HealthStats). */
export interface HealthFeed {
  readonly now: () => number;
  observe(observer: (key: string, observation: HealthObservation) => void): void;
  applyRemote(key: string, observation: HealthObservation): void;
}

/** What the bus needs of a replica's sticky sessions (routing/sticky.ts's StickySessions). */
export interface StickyFeed {
  observe(observer: (scope: string, endpoint: string) => void): void;
  setRemote(scope: string, endpoint: string): void;
}

/** What the bus runs over and what it shares. */
export interface RoutingBusOptions {
  pg: SQL;
  health: HealthFeed;
  sticky: StickyFeed;
  logger: Logger;
  /** How long observations are gathered before they are sent; default 250 ms. */
  intervalMs?: number;
}

/** See the file's comment. `open` starts listening and hooks into the replica's health and stickiness. */
export class RoutingBus {
  /** This replica's id: messages carrying it are its own. */
  readonly replicaId = crypto.randomUUID();
  readonly #sticky = new Map<string, string>();
  readonly #health = new Map<string, PendingHealth>();
  readonly #timer: FlushTimer;
  #unlisten: (() => Promise<void>) | undefined;
  #sending: Promise<void> = Promise.resolve();
  #failing = false;

  private constructor(private readonly options: RoutingBusOptions) {
    this.#timer = new FlushTimer(options.intervalMs ?? 250, () => this.flush());
  }

  static async open(options: RoutingBusOptions): Promise<RoutingBus> {
    const bus = new RoutingBus(options);
    const subscription = await options.pg.listen(ROUTING_CHANNEL, (payload) => bus.#receive(payload));
    bus.#unlisten = () => subscription.unlisten();
    options.sticky.observe((scope, endpoint) => bus.#queueSticky(scope, endpoint));
    options.health.observe((key, observation) => bus.#queueHealth(key, observation));
    return bus;
  }

  #queueSticky(scope: string, endpoint: string): void {
    this.#sticky.set(scope, endpoint);
    this.#timer.schedule();
  }

  #queueHealth(key: string, observation: HealthObservation): void {
    let pending = this.#health.get(key);
    if (!pending) this.#health.set(key, (pending = { successes: 0, failures: 0, coolUntil: 0 }));
    pending.successes += observation.successes;
    pending.failures += observation.failures;
    if (observation.coolForMs) pending.coolUntil = Math.max(pending.coolUntil, this.options.health.now() + observation.coolForMs);
    this.#timer.schedule();
  }

  /** Sends what was gathered now (one flush at a time). */
  flush(): Promise<void> {
    this.#sending = this.#sending.then(() => this.#send());
    return this.#sending;
  }

  async #send(): Promise<void> {
    const messages = this.#messages();
    try {
      for (const message of messages) await this.options.pg.notify(ROUTING_CHANNEL, message);
      this.#failing = false;
    } catch (error) {
      // Routing hints are perishable: a batch that cannot be sent is dropped, not retried.
      if (!this.#failing) this.options.logger.warn("routing bus: announcing to other replicas failed", { error: describeError(error) });
      this.#failing = true;
    }
  }

  /** The gathered observations as payloads of at most MAX_PAYLOAD_BYTES each; empties the queues. */
  #messages(): string[] {
    const now = this.options.health.now();
    const entries: { field: "s" | "h"; entry: Message["s"][number] | Message["h"][number] }[] = [];
    for (const [scope, endpoint] of this.#sticky) entries.push({ field: "s", entry: [scope, endpoint] });
    for (const [key, pending] of this.#health) {
      entries.push({ field: "h", entry: [key, pending.successes, pending.failures, Math.max(0, pending.coolUntil - now)] });
    }
    this.#sticky.clear();
    this.#health.clear();
    const payloads: string[] = [];
    const empty = (): Message => ({ r: this.replicaId, s: [], h: [] });
    let message = empty();
    let size = Buffer.byteLength(JSON.stringify(message));
    for (const { field, entry } of entries) {
      // The entry and the comma before it.
      const bytes = Buffer.byteLength(JSON.stringify(entry)) + 1;
      if (size + bytes > MAX_PAYLOAD_BYTES && (message.s.length > 0 || message.h.length > 0)) {
        payloads.push(JSON.stringify(message));
        message = empty();
        size = Buffer.byteLength(JSON.stringify(message));
      }
      if (size + bytes > MAX_PAYLOAD_BYTES) {
        this.options.logger.debug("routing bus: an entry too large to announce was dropped", { bytes });
        continue;
      }
      (message[field] as unknown[]).push(entry);
      size += bytes;
    }
    if (message.s.length > 0 || message.h.length > 0) payloads.push(JSON.stringify(message));
    return payloads;
  }

  #receive(payload: string): void {
    let message: Partial<Message>;
    try {
      message = JSON.parse(payload) as Partial<Message>;
    } catch {
      this.options.logger.warn("routing bus: an unreadable message was ignored", { bytes: payload.length });
      return;
    }
    if (message.r === this.replicaId) return;
    for (const entry of Array.isArray(message.s) ? message.s : []) {
      if (Array.isArray(entry) && typeof entry[0] === "string" && typeof entry[1] === "string") this.options.sticky.setRemote(entry[0], entry[1]);
    }
    for (const entry of Array.isArray(message.h) ? message.h : []) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string") continue;
      const [key, successes, failures, coolForMs] = entry;
      this.options.health.applyRemote(key, { successes: count(successes), failures: count(failures), coolForMs: count(coolForMs) });
    }
  }

  /** Sends what is still gathered and stops listening. */
  async close(): Promise<void> {
    this.#timer.stop();
    await this.flush();
    await this.#unlisten?.().catch(() => {});
  }
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}
