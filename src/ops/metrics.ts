/**
 * Prometheus metrics in the text exposition format (version 0.0.4), without a client library:
 * counters, gauges (set, or read at scrape time) and histograms with fixed buckets.
 * Label values come only from bounded sets (route patterns, provider slugs, catalog model ids, error
 * codes, HTTP statuses); never a key, a secret, a prompt or a body.
 */
import type { GenerationRow } from "../core/generation.ts";

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

type Labels = Record<string, string>;

/** Escapes a label value: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function formatLabels(names: readonly string[], values: readonly string[], extra?: [string, string]): string {
  const pairs = names.map((name, index) => `${name}="${escapeLabelValue(values[index] ?? "")}"`);
  if (extra) pairs.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return pairs.length === 0 ? "" : `{${pairs.join(",")}}`;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

abstract class Metric<Series> {
  protected readonly series = new Map<string, { values: string[]; data: Series }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name ${name}`);
    for (const label of labelNames) if (!LABEL_NAME.test(label) || label === "le") throw new Error(`invalid label name ${label}`);
  }

  abstract readonly type: "counter" | "gauge" | "histogram";
  protected abstract create(): Series;
  protected abstract sampleLines(values: string[], data: Series): string[];

  protected entry(labels: Labels): Series {
    return this.child(this.labelNames.map((name) => labels[name] ?? ""));
  }

  /** The series of these label values (in labelNames order), created on first use: callers may keep it. */
  child(values: string[]): Series {
    const key = values.join("\u0000");
    let found = this.series.get(key);
    if (!found) {
      found = { values, data: this.create() };
      this.series.set(key, found);
    }
    return found.data;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`];
    for (const { values, data } of this.series.values()) lines.push(...this.sampleLines(values, data));
    return lines;
  }
}

export class Counter extends Metric<{ value: number }> {
  readonly type = "counter";
  protected create() {
    return { value: 0 };
  }
  /** Adds a non-negative amount (counters never go down). */
  inc(labels: Labels = {}, amount = 1): void {
    if (!(amount >= 0) || !Number.isFinite(amount)) return;
    this.entry(labels).value += amount;
  }
  /** `inc` on a series the caller keeps (from `child`). */
  static add(series: { value: number }, amount = 1): void {
    if (!(amount >= 0) || !Number.isFinite(amount)) return;
    series.value += amount;
  }
  get(labels: Labels = {}): number {
    return this.series.get(this.labelNames.map((name) => labels[name] ?? "").join("\u0000"))?.data.value ?? 0;
  }
  protected sampleLines(values: string[], data: { value: number }) {
    return [`${this.name}${formatLabels(this.labelNames, values)} ${formatValue(data.value)}`];
  }
}

/** A counter whose series are read at scrape time from a count kept elsewhere (which only grows). */
export class CollectedCounter extends Counter {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly collect: () => Array<[Labels, number]>,
  ) {
    super(name, help, labelNames);
  }
  override render(): string[] {
    for (const [labels, value] of this.collect()) this.entry(labels).value = value;
    return super.render();
  }
}

export class Gauge extends Metric<{ value: number }> {
  readonly type = "gauge";
  #collect: (() => number) | undefined;

  /** A gauge without labels may read its value at scrape time. */
  constructor(name: string, help: string, labelNames: readonly string[] = [], collect?: () => number) {
    super(name, help, labelNames);
    this.#collect = collect;
  }
  protected create() {
    return { value: 0 };
  }
  set(labels: Labels, value: number): void {
    this.entry(labels).value = value;
  }
  inc(labels: Labels = {}, amount = 1): void {
    this.entry(labels).value += amount;
  }
  override render(): string[] {
    if (this.#collect) this.set({}, this.#collect());
    return super.render();
  }
  protected sampleLines(values: string[], data: { value: number }) {
    return [`${this.name}${formatLabels(this.labelNames, values)} ${formatValue(data.value)}`];
  }
}

interface HistogramSeries {
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Metric<HistogramSeries> {
  readonly type = "histogram";
  readonly buckets: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    this.buckets = [...buckets].sort((a, b) => a - b);
  }
  protected create(): HistogramSeries {
    return { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }
  observe(labels: Labels, value: number): void {
    if (!Number.isFinite(value)) return;
    this.record(this.entry(labels), value);
  }
  /** `observe` on a series the caller keeps (from `child`). */
  record(series: HistogramSeries, value: number): void {
    if (!Number.isFinite(value)) return;
    // Counts per bucket are kept cumulative, as they are exposed.
    const { buckets } = this;
    const { counts } = series;
    // The buckets are sorted: the value falls in a suffix of them.
    for (let index = buckets.length - 1; index >= 0 && value <= buckets[index]!; index--) counts[index]! += 1;
    series.sum += value;
    series.count += 1;
  }
  protected sampleLines(values: string[], data: HistogramSeries) {
    const lines = this.buckets.map(
      (bound, index) => `${this.name}_bucket${formatLabels(this.labelNames, values, ["le", formatValue(bound)])} ${data.counts[index]}`,
    );
    lines.push(`${this.name}_bucket${formatLabels(this.labelNames, values, ["le", "+Inf"])} ${data.count}`);
    lines.push(`${this.name}_sum${formatLabels(this.labelNames, values)} ${formatValue(data.sum)}`);
    lines.push(`${this.name}_count${formatLabels(this.labelNames, values)} ${data.count}`);
    return lines;
  }
}

export class Registry {
  readonly #metrics: Array<Metric<unknown>> = [];

  register<M extends Metric<any>>(metric: M): M {
    if (this.#metrics.some((existing) => existing.name === metric.name)) throw new Error(`metric ${metric.name} registered twice`);
    this.#metrics.push(metric);
    return metric;
  }

  /** The exposition text, one HELP and TYPE pair per metric, ending with a line feed. */
  render(): string {
    return `${this.#metrics.flatMap((metric) => metric.render()).join("\n")}\n`;
  }
}

/** What the pipeline reports: each upstream attempt, and each generation record it writes. */

/** What a bounded map of client-chosen keys holds and let go (see src/routing/expiring-map.ts). */
export interface BoundedMapStats {
  size: number;
  evictedForSize: number;
  expired: number;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The gateway's metrics. Gauges that mirror other state read it at scrape time. */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #started = performance.now();

  readonly httpRequests = this.registry.register(
    new Counter("roundhouse_http_requests_total", "HTTP requests by matched route pattern, method and status.", ["route", "method", "status"]),
  );
  readonly httpDuration = this.registry.register(
    new Histogram("roundhouse_http_request_duration_seconds", "Time to the response (the headers, for streams) by route pattern.", ["route"], DURATION_BUCKETS),
  );
  readonly upstreamAttempts = this.registry.register(
    new Counter("roundhouse_upstream_attempts_total", "Upstream attempts by provider and HTTP status (200 is a success).", ["provider", "status"]),
  );
  readonly upstreamFailures = this.registry.register(
    new Counter("roundhouse_upstream_failures_total", "Failed upstream attempts by provider and error code.", ["provider", "code"]),
  );
  readonly tokens = this.registry.register(
    new Counter("roundhouse_tokens_total", "Tokens by model and type (prompt, completion, cached, reasoning).", ["model", "type"]),
  );
  readonly cost = this.registry.register(new Counter("roundhouse_cost_usd_total", "Cost in US dollars by model.", ["model"]));
  readonly configReloads = this.registry.register(
    new Counter("roundhouse_config_reloads_total", "Config reloads (SIGHUP or a watched file change) by result: applied or rejected.", ["result"]),
  );

  constructor(sources: {
    activeStreams: () => number;
    pendingGenerations: () => number;
    droppedGenerations?: () => number;
    stickySessions?: () => BoundedMapStats;
    routerMemory?: () => BoundedMapStats;
    /** Spans the broadcast exporter sent, and dropped by reason. */
    broadcast?: () => { exported: number; dropped: Readonly<Record<string, number>> };
  }) {
    const { registry } = this;
    registry.register(new Gauge("roundhouse_active_streams", "Streaming responses in flight.", [], sources.activeStreams));
    registry.register(
      new Gauge("roundhouse_generations_pending", "Generation records queued and not yet written.", [], sources.pendingGenerations),
    );
    const dropped = sources.droppedGenerations;
    if (dropped) {
      registry.register(
        new CollectedCounter("roundhouse_generations_dropped_total", "Generation records dropped because too many were held while the database could not take them.", [], () => [[{}, dropped()]]),
      );
    }
    const broadcast = sources.broadcast;
    if (broadcast) {
      registry.register(new CollectedCounter("roundhouse_broadcast_spans_exported_total", "Spans broadcast destinations accepted.", [], () => [[{}, broadcast().exported]]));
      registry.register(
        new CollectedCounter(
          "roundhouse_broadcast_spans_dropped_total",
          "Spans not exported, by reason: queue (the export queue or a destination's backlog was full; a record dropped from the queue counts once) or failed (the destination refused or could not be reached after every retry).",
          ["reason"],
          () => Object.entries(broadcast().dropped).map(([reason, value]) => [{ reason }, value]),
        ),
      );
    }
    registry.register(
      new Gauge("process_resident_memory_bytes", "Resident memory size in bytes.", [], () => process.memoryUsage.rss()),
    );
    const { stickySessions, routerMemory } = sources;
    if (stickySessions) this.#bounded(stickySessions, "roundhouse_sticky_sessions", "roundhouse_sticky_evictions_total", "Conversations sticky routing remembers.", "sticky routing");
    if (routerMemory) this.#bounded(routerMemory, "roundhouse_router_memory_entries", "roundhouse_router_memory_evictions_total", "Choices plugins remember per conversation.", "the router memory");
    const startTime = Date.now() / 1000 - process.uptime();
    registry.register(new Gauge("process_start_time_seconds", "Start time of the process since the Unix epoch in seconds.", [], () => startTime));
    registry.register(
      new Gauge("roundhouse_uptime_seconds", "Seconds since the gateway started.", [], () => (performance.now() - this.#started) / 1000),
    );
  }

  /** A size gauge and an eviction counter (reason "size": the bound was reached; "expired": the TTL ran out). */
  #bounded(stats: () => BoundedMapStats, gauge: string, counter: string, help: string, what: string): void {
    this.registry.register(new Gauge(gauge, help, [], () => stats().size));
    this.registry.register(
      new CollectedCounter(counter, `Entries ${what} dropped, by reason: size (its bound was reached) or expired.`, ["reason"], () => {
        const { evictedForSize, expired } = stats();
        return [
          [{ reason: "size" }, evictedForSize],
          [{ reason: "expired" }, expired],
        ];
      }),
    );
  }

  // The series each hot-path call updates, by their label values: label sets are bounded (see above).
  readonly #requestSeries = new Map<string, { count: { value: number }; duration: HistogramSeries }>();
  readonly #attemptSeries = new Map<string, { value: number }>();
  readonly #modelSeries = new Map<string, Array<{ value: number }>>();

  httpRequest(route: string, method: string, status: number, seconds: number): void {
    const verb = METHODS.has(method) ? method : "other";
    const key = `${route}\u0000${verb}\u0000${status}`;
    let series = this.#requestSeries.get(key);
    if (!series) {
      series = { count: this.httpRequests.child([route, verb, String(status)]), duration: this.httpDuration.child([route]) };
      this.#requestSeries.set(key, series);
    }
    Counter.add(series.count);
    this.httpDuration.record(series.duration, seconds);
  }

  attempt(provider: string, status: number, code?: string): void {
    const key = `${provider}\u0000${status}`;
    let series = this.#attemptSeries.get(key);
    if (!series) {
      series = this.upstreamAttempts.child([provider, String(status)]);
      this.#attemptSeries.set(key, series);
    }
    Counter.add(series);
    if (status !== 200) this.upstreamFailures.inc({ provider, code: code ?? "unknown" });
  }

  generation(row: Pick<GenerationRow, "model" | "tokensPrompt" | "tokensCompletion" | "tokensCached" | "tokensReasoning" | "totalCost">): void {
    const { model } = row;
    let series = this.#modelSeries.get(model);
    if (!series) {
      series = [...["prompt", "completion", "cached", "reasoning"].map((type) => this.tokens.child([model, type])), this.cost.child([model])];
      this.#modelSeries.set(model, series);
    }
    const [prompt, completion, cached, reasoning, cost] = series as [{ value: number }, { value: number }, { value: number }, { value: number }, { value: number }];
    Counter.add(prompt, row.tokensPrompt ?? 0);
    Counter.add(completion, row.tokensCompletion ?? 0);
    Counter.add(cached, row.tokensCached ?? 0);
    Counter.add(reasoning, row.tokensReasoning ?? 0);
    Counter.add(cost, row.totalCost);
  }

  render(): string {
    return this.registry.render();
  }
}
