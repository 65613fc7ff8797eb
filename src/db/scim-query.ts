import { and, type Column, eq, isNotNull, isNull, ne, not, or, type SQL, sql } from "drizzle-orm";
import { type FilterValue, type ScimFilter, scimError } from "../core/scim-filter.ts";

/*
 * Turns a parsed SCIM filter into a WHERE condition over known columns. An attribute not in the
 * field map is refused (`invalidFilter`); values are always bound parameters.
 */

/**
 * How a filterable attribute is stored: a text column (compared case-insensitively unless
 * `caseExact`), a boolean column, a timestamp column (ISO text), or a constant every row has (an
 * e-mail's `type` is always "work").
 */
export type FieldSpec =
  | { column: Column; type: "string"; caseExact?: boolean }
  | { column: Column; type: "boolean" }
  | { column: Column; type: "date" }
  | { constant: string | boolean }
  | { custom: (op: string, value: FilterValue) => SQL };

/** Lower-cased attribute paths (`username`, `name.givenname`, `emails.value`) and their storage. */
export type FieldMap = Record<string, FieldSpec>;

const TRUE = sql`1 = 1`;
const FALSE = sql`1 = 0`;

function invalid(detail: string) {
  return scimError("invalidFilter", `filter: ${detail}`);
}

function field(fields: FieldMap, path: string): FieldSpec {
  const spec = fields[path];
  if (!spec) throw invalid(`unknown or unfilterable attribute '${path}'`);
  return spec;
}

/** `%`, `_` and the escape character itself match literally in a LIKE pattern. */
function likePattern(value: string, op: "co" | "sw" | "ew"): string {
  const escaped = value.replace(/[\\%_]/g, (char) => `\\${char}`);
  return op === "sw" ? `${escaped}%` : op === "ew" ? `%${escaped}` : `%${escaped}%`;
}

function constantCompare(constant: string | boolean, op: string, value: FilterValue): SQL {
  const left = typeof constant === "string" ? constant.toLowerCase() : constant;
  const right = typeof value === "string" ? value.toLowerCase() : value;
  const outcome: Record<string, () => boolean> = {
    eq: () => left === right,
    ne: () => left !== right,
    co: () => typeof right === "string" && String(left).includes(right),
    sw: () => typeof right === "string" && String(left).startsWith(right),
    ew: () => typeof right === "string" && String(left).endsWith(right),
  };
  const test = outcome[op];
  if (!test) throw invalid(`operator '${op}' does not apply to this attribute`);
  return test() ? TRUE : FALSE;
}

function compare(spec: FieldSpec, path: string, op: string, value: FilterValue): SQL {
  if ("constant" in spec) return constantCompare(spec.constant, op, value);
  if ("custom" in spec) return spec.custom(op, value);
  const { column } = spec;
  if (value === null) {
    if (op === "eq") return isNull(column);
    if (op === "ne") return isNotNull(column);
    throw invalid(`'${path} ${op} null' is not a comparison`);
  }
  if (spec.type === "boolean") {
    if (typeof value !== "boolean") throw invalid(`'${path}' is a boolean: compare it with true or false`);
    if (op === "eq") return eq(column, value);
    if (op === "ne") return ne(column, value);
    throw invalid(`operator '${op}' does not apply to the boolean '${path}'`);
  }
  if (typeof value !== "string") throw invalid(`'${path}' is a string: compare it with a quoted value`);
  if (spec.type === "date") {
    const time = Date.parse(value);
    if (Number.isNaN(time)) throw invalid(`'${path}' is a timestamp: expected an ISO 8601 value`);
    const iso = new Date(time).toISOString();
    const ops: Record<string, SQL> = {
      eq: sql`${column} = ${iso}`, ne: sql`${column} <> ${iso}`, gt: sql`${column} > ${iso}`,
      ge: sql`${column} >= ${iso}`, lt: sql`${column} < ${iso}`, le: sql`${column} <= ${iso}`,
    };
    const condition = ops[op];
    if (!condition) throw invalid(`operator '${op}' does not apply to the timestamp '${path}'`);
    return condition;
  }
  const exact = spec.caseExact ?? false;
  const left = exact ? sql`${column}` : sql`lower(${column})`;
  const right = exact ? value : value.toLowerCase();
  switch (op) {
    case "eq": return sql`${left} = ${right}`;
    case "ne": return sql`(${column} is null or ${left} <> ${right})`;
    case "co": case "sw": case "ew": return sql`${left} like ${likePattern(right, op)} escape '\\'`;
    case "gt": return sql`${left} > ${right}`;
    case "ge": return sql`${left} >= ${right}`;
    case "lt": return sql`${left} < ${right}`;
    default: return sql`${left} <= ${right}`;
  }
}

/** The WHERE condition of a filter over `fields`; `prefix` qualifies the attributes inside `attr[...]`. */
export function filterCondition(filter: ScimFilter, fields: FieldMap, prefix = ""): SQL {
  switch (filter.kind) {
    case "compare":
      return compare(field(fields, prefix + filter.path), prefix + filter.path, filter.op, filter.value);
    case "present": {
      const spec = field(fields, prefix + filter.path);
      if ("custom" in spec) throw invalid(`'${filter.path} pr' is not supported`);
      return "constant" in spec ? TRUE : spec.type === "string" ? sql`(${spec.column} is not null and ${spec.column} <> '')` : isNotNull(spec.column);
    }
    case "and":
      return and(filterCondition(filter.left, fields, prefix), filterCondition(filter.right, fields, prefix))!;
    case "or":
      return or(filterCondition(filter.left, fields, prefix), filterCondition(filter.right, fields, prefix))!;
    case "not":
      return not(filterCondition(filter.filter, fields, prefix));
    case "valuePath": {
      const inner = filterCondition(filter.filter, fields, `${prefix}${filter.path}.`);
      return filter.then ? and(inner, filterCondition(filter.then, fields, prefix))! : inner;
    }
  }
}
