import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { DIMENSIONS, type DimensionDefinition, GRANULARITIES, type Granularity, METRICS, OPERATORS, type Operator } from "../db/analytics-catalog.ts";
import { type AnalyticsFilter, type AnalyticsQuery, type FilterScalar, TIME_BUCKET } from "../db/analytics.ts";

/** Most rows one query answers. */
const MAX_LIMIT = 10_000;

const Scalar = t.Union([t.String({ maxLength: 512 }), t.Number()]);
const FilterValue = t.Union([Scalar, t.Array(Scalar, { maxItems: 1000 })]);

/** The body of `POST /analytics/query` (names are checked against the catalogue by `parseAnalyticsQuery`). */
export const AnalyticsQueryBody = t.Object(
  {
    metrics: t.Array(t.String(), { minItems: 1, maxItems: METRICS.length }),
    dimensions: t.Optional(t.Array(t.String(), { maxItems: 2 })),
    filters: t.Optional(
      t.Array(
        t.Object({ field: t.String(), operator: t.String(), value: FilterValue, include_unset: t.Optional(t.Boolean()) }, { additionalProperties: false }),
        { maxItems: 20 },
      ),
    ),
    granularity: t.Optional(t.String()),
    time_range: t.Optional(t.Object({ start: t.String({ format: "date-time" }), end: t.String({ format: "date-time" }) }, { additionalProperties: false })),
    order_by: t.Optional(t.Object({ field: t.String(), direction: t.Union([t.Literal("asc"), t.Literal("desc")], { expected: '"asc" or "desc"' }) }, { additionalProperties: false })),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: MAX_LIMIT })),
    group_limit: t.Optional(t.Integer({ minimum: 1 })),
    classifier_dimensions: t.Optional(t.Unknown()),
    classifier_filters: t.Optional(t.Unknown()),
  },
  { additionalProperties: false },
);

/** Default time range when none is given: the last 30 days. */
const DEFAULT_RANGE_MS = 30 * 24 * 3600 * 1000;

const bad = (message: string) => new GatewayError("bad_request", message);
const names = (list: Array<{ name: string }>) => list.map((item) => item.name).join(", ");

function findDimension(name: string, field: string): DimensionDefinition {
  const dimension = DIMENSIONS.find((item) => item.name === name);
  if (!dimension) throw bad(`${field}: unknown dimension '${name}'; allowed: ${names(DIMENSIONS)}`);
  return dimension;
}

/** A filter value as its field's stored type. */
function coerce(value: string | number, dimension: DimensionDefinition, field: string): FilterScalar {
  if (dimension.type === "text") return String(value);
  if (dimension.type === "boolean") {
    if (value === "true" || value === 1) return true;
    if (value === "false" || value === 0) return false;
    throw bad(`${field}: '${dimension.name}' takes true or false`);
  }
  const number = Number(value);
  if (!Number.isInteger(number)) throw bad(`${field}: '${dimension.name}' takes an integer`);
  return number;
}

function parseFilter(filter: NonNullable<typeof AnalyticsQueryBody.static.filters>[number], index: number): AnalyticsFilter {
  const at = `body.filters[${index}]`;
  const dimension = findDimension(filter.field, `${at}.field`);
  if (!(filter.operator in OPERATORS)) throw bad(`${at}.operator: unknown operator '${filter.operator}'; allowed: ${Object.keys(OPERATORS).join(", ")}`);
  const operator = filter.operator as Operator;
  const wantsList = OPERATORS[operator] === "array";
  if (wantsList !== Array.isArray(filter.value)) throw bad(`${at}.value: operator '${operator}' takes ${wantsList ? "an array" : "a single value"}`);
  const value = Array.isArray(filter.value)
    ? filter.value.map((item, position) => coerce(item, dimension, `${at}.value[${position}]`))
    : coerce(filter.value, dimension, `${at}.value`);
  return { dimension, operator, value, includeUnset: filter.include_unset ?? false };
}

function parseTime(value: string, field: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw bad(`${field}: expected an ISO 8601 timestamp`);
  return new Date(time).toISOString();
}

/** Checks every name of a query against the catalogue: 400 naming the field and what is allowed. */
export function parseAnalyticsQuery(body: typeof AnalyticsQueryBody.static, now = new Date()): { query: AnalyticsQuery; warnings: string[] } {
  if (body.classifier_dimensions !== undefined) throw bad("body.classifier_dimensions: no classifiers run on this deployment");
  if (body.classifier_filters !== undefined) throw bad("body.classifier_filters: no classifiers run on this deployment");
  const metrics = body.metrics.map((name, index) => {
    const metric = METRICS.find((item) => item.name === name);
    if (!metric) throw bad(`body.metrics[${index}]: unknown metric '${name}'; allowed: ${names(METRICS)}`);
    return metric;
  });
  if (new Set(body.metrics).size !== metrics.length) throw bad("body.metrics: each metric at most once");
  const dimensions = (body.dimensions ?? []).map((name, index) => findDimension(name, `body.dimensions[${index}]`));
  if (new Set(body.dimensions).size !== dimensions.length) throw bad("body.dimensions: each dimension at most once");
  let granularity: Granularity | undefined;
  if (body.granularity !== undefined) {
    if (!(GRANULARITIES as readonly string[]).includes(body.granularity)) throw bad(`body.granularity: unknown granularity '${body.granularity}'; allowed: ${GRANULARITIES.join(", ")}`);
    granularity = body.granularity as Granularity;
  }
  const end = body.time_range ? parseTime(body.time_range.end, "body.time_range.end") : now.toISOString();
  const start = body.time_range ? parseTime(body.time_range.start, "body.time_range.start") : new Date(Date.parse(end) - DEFAULT_RANGE_MS).toISOString();
  if (start >= end) throw bad("body.time_range: start must be before end");
  const selectable = [...(granularity ? [TIME_BUCKET] : []), ...dimensions.map((item) => item.name), ...metrics.map((item) => item.name)];
  const orderBy = body.order_by ?? (granularity ? { field: TIME_BUCKET, direction: "asc" as const } : { field: metrics[0]!.name, direction: "desc" as const });
  if (!selectable.includes(orderBy.field)) throw bad(`body.order_by.field: '${orderBy.field}' is not in the query; allowed: ${selectable.join(", ")}`);
  const warnings = body.group_limit === undefined ? [] : ["group_limit is not applied: every group is returned up to limit"];
  return {
    query: { metrics, dimensions, filters: (body.filters ?? []).map(parseFilter), granularity, start, end, orderBy, limit: body.limit ?? 1000 },
    warnings,
  };
}

/** `GET /analytics/meta`: the catalogue, in the reference's shape. */
export function analyticsMeta() {
  return {
    metrics: METRICS.map((metric) => ({ name: metric.name, display_label: metric.label, display_format: metric.format, is_rate: metric.rate })),
    dimensions: DIMENSIONS.map((dimension) => ({ name: dimension.name, display_label: dimension.label })),
    granularities: GRANULARITIES.map((name) => ({ name, display_label: name[0]!.toUpperCase() + name.slice(1) })),
    operators: Object.entries(OPERATORS).map(([name, valueType]) => ({ name, value_type: valueType })),
  };
}
