import { type Static, Type as T } from "@sinclair/typebox";
import { literals, nullable, union } from "../../core/schema-builders.ts";

export const QUANTIZATIONS = [
  "int4",
  "int8",
  "fp4",
  "mxfp4",
  "nvfp4",
  "fp6",
  "fp8",
  "mxfp8",
  "fp16",
  "bf16",
  "fp32",
  "unknown",
] as const;

export const PROVIDER_SORTS = ["price", "throughput", "latency", "exacto"] as const;

const Price = union(
  [
    T.String({
      pattern: "^(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?$",
      expected: 'a non-negative numeric string such as "0.5"',
    }),
    T.Number({ minimum: 0 }),
  ],
  'a non-negative number or numeric string such as "0.5"',
);

export const MaxPrice = T.Object(
  {
    prompt: T.Optional(Price),
    completion: T.Optional(Price),
    image: T.Optional(Price),
    audio: T.Optional(Price),
    request: T.Optional(Price),
  },
  { additionalProperties: false },
);
export type MaxPrice = Static<typeof MaxPrice>;

const Percentile = nullable(T.Number({ minimum: 0 }));

export const PercentileThresholds = T.Object(
  {
    p50: T.Optional(Percentile),
    p75: T.Optional(Percentile),
    p90: T.Optional(Percentile),
    p99: T.Optional(Percentile),
  },
  { additionalProperties: false },
);
export type PercentileThresholds = Static<typeof PercentileThresholds>;

export const PerformancePreference = union(
  [T.Number({ minimum: 0 }), PercentileThresholds, T.Null()],
  "a number of at least 0, {p50, p75, p90, p99}, or null",
);
export type PerformancePreference = Static<typeof PerformancePreference>;

export const ProviderSortConfig = T.Object(
  {
    by: T.Optional(nullable(literals([...PROVIDER_SORTS]))),
    partition: T.Optional(nullable(literals(["model", "none"]))),
  },
  { additionalProperties: false },
);
export type ProviderSortConfig = Static<typeof ProviderSortConfig>;

export const ProviderSort = union(
  [literals([...PROVIDER_SORTS]), ProviderSortConfig, T.Null()],
  '"price", "throughput", "latency", "exacto", {by, partition}, or null',
);
export type ProviderSort = Static<typeof ProviderSort>;

const ProviderList = nullable(T.Array(T.String()), "an array of provider slugs or null");
const NullableBoolean = nullable(T.Boolean());

export const ProviderPreferencesObject = T.Object(
  {
    allow_fallbacks: T.Optional(NullableBoolean),
    data_collection: T.Optional(nullable(literals(["allow", "deny"]))),
    enforce_distillable_text: T.Optional(NullableBoolean),
    ignore: T.Optional(ProviderList),
    only: T.Optional(ProviderList),
    order: T.Optional(ProviderList),
    max_price: T.Optional(MaxPrice),
    preferred_max_latency: T.Optional(PerformancePreference),
    preferred_min_throughput: T.Optional(PerformancePreference),
    quantizations: T.Optional(
      nullable(T.Array(literals([...QUANTIZATIONS])), "an array of quantization levels or null"),
    ),
    require_parameters: T.Optional(NullableBoolean),
    sort: T.Optional(ProviderSort),
    zdr: T.Optional(NullableBoolean),
  },
  { additionalProperties: false },
);
export type ProviderPreferencesObject = Static<typeof ProviderPreferencesObject>;

export const ProviderPreferences = nullable(ProviderPreferencesObject, "a provider preferences object or null");
export type ProviderPreferences = Static<typeof ProviderPreferences>;
