import type { Attributes } from "@opentelemetry/api";
import { JsonMetricsSerializer, ProtobufMetricsSerializer } from "@opentelemetry/otlp-transformer";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { deadline } from "../../core/deadline.ts";
import type { GenerationRow } from "../../core/generation.ts";
import type { Logger } from "../../core/log.ts";
import type { OtelSettings } from "../otel-env.ts";
import { operationName, resourceOf } from "./spans.ts";

/** Bucket boundaries the GenAI semantic conventions advise for each histogram. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/** A reader collected on our own timer (the SDK's periodic reader needs an exporter class we do not need). */
class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/**
 * The GenAI client metrics of every generation (`gen_ai.client.token.usage`,
 * `gen_ai.client.operation.duration`), exported over OTLP/HTTP every OTEL_METRIC_EXPORT_INTERVAL,
 * encoded by the same OTLP serializers as the broadcast exporter's spans. Recording is in memory;
 * an export that fails is logged once per failure run and retried at the next interval (cumulative
 * temporality: nothing is lost but resolution).
 */
export class GenAiMetrics {
  readonly #reader = new CollectingReader();
  readonly #provider: MeterProvider;
  readonly #tokens;
  readonly #duration;
  readonly #target: NonNullable<OtelSettings["metrics"]>;
  readonly #logger: Logger;
  readonly #fetch: (url: string, init: RequestInit) => Promise<Response>;
  #timer: ReturnType<typeof setInterval> | undefined;
  #failing = false;
  #exports = 0;

  constructor(settings: OtelSettings & { metrics: NonNullable<OtelSettings["metrics"]> }, logger: Logger, fetcher?: (url: string, init: RequestInit) => Promise<Response>) {
    this.#target = settings.metrics;
    this.#logger = logger;
    this.#fetch = fetcher ?? ((url, init) => fetch(url, init));
    this.#provider = new MeterProvider({ resource: resourceOf(settings.resource), readers: [this.#reader] });
    const meter = this.#provider.getMeter("roundhouse");
    this.#tokens = meter.createHistogram("gen_ai.client.token.usage", { unit: "{token}", description: "Tokens used by generations, by type (input, output)", advice: { explicitBucketBoundaries: TOKEN_BUCKETS } });
    this.#duration = meter.createHistogram("gen_ai.client.operation.duration", { unit: "s", description: "Duration of generations, upstream attempts included", advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
  }

  /** Exports every interval from now on; the timer does not keep the process alive. */
  start(): void {
    this.#timer ??= setInterval(() => void this.export(), this.#target.intervalMs);
    this.#timer.unref?.();
  }

  /** Records a generation: its duration, and its input and output tokens when known. */
  record(row: GenerationRow): void {
    const attributes: Attributes = { "gen_ai.operation.name": operationName(row.style), "gen_ai.request.model": row.model };
    if (row.providerSlug) attributes["gen_ai.provider.name"] = row.providerSlug;
    if (row.providerSlug) attributes["gen_ai.response.model"] = row.upstreamModel ?? row.model;
    if (row.status >= 400 || row.errorCode) attributes["error.type"] = row.errorCode ?? String(row.status);
    const seconds = (row.latencyMs ?? row.generationTimeMs ?? 0) / 1000;
    this.#duration.record(seconds, attributes);
    if (row.tokensPrompt !== null) this.#tokens.record(row.tokensPrompt, { ...attributes, "gen_ai.token.type": "input" });
    if (row.tokensCompletion !== null) this.#tokens.record(row.tokensCompletion, { ...attributes, "gen_ai.token.type": "output" });
  }

  /** Export requests the collector accepted so far. */
  get exports(): number {
    return this.#exports;
  }

  /** Collects and sends the metrics once (nothing is sent before a first generation). */
  async export(): Promise<void> {
    const timeout = deadline(Math.min(10_000, this.#target.intervalMs * 2 + 1000), undefined, "The metrics export");
    try {
      const { resourceMetrics } = await this.#reader.collect();
      if (resourceMetrics.scopeMetrics.every((scope) => scope.metrics.length === 0)) return;
      const protobuf = this.#target.encoding === "protobuf";
      const body = (protobuf ? ProtobufMetricsSerializer : JsonMetricsSerializer).serializeRequest(resourceMetrics);
      if (!body) throw new Error("metrics could not be encoded");
      const response = await this.#fetch(this.#target.url, {
        method: "POST",
        headers: { ...this.#target.headers, "content-type": protobuf ? "application/x-protobuf" : "application/json" },
        body,
        signal: timeout.signal,
      });
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) throw new Error(`the collector answered ${response.status}`);
      this.#exports++;
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) this.#logger.warn("OTLP metrics export failed; retrying at the next interval", { url: this.#target.url, error: error instanceof Error ? error.message : String(error) });
      this.#failing = true;
    } finally {
      timeout.clear();
    }
  }

  /** Stops the timer and sends what was recorded, once. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.export();
    await this.#provider.shutdown().catch(() => undefined);
  }
}
