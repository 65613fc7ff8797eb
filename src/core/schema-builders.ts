import {
  Kind,
  type SchemaOptions,
  type TLiteral,
  type TNull,
  type TSchema,
  type TUnion,
  Type as T,
} from "@sinclair/typebox";

type LiteralValue = string | number | boolean;
type Literals<V extends LiteralValue[]> = { [K in keyof V]: TLiteral<V[K]> };

export function joinAlternatives(items: string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  if (items.length === 2) return `${items[0]} or ${items[1]}`;
  return `${items.slice(0, -1).join(", ")}, or ${items[items.length - 1]}`;
}

function range(minimum: unknown, maximum: unknown): string {
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` of at least ${minimum}`;
  if (maximum !== undefined) return ` of at most ${maximum}`;
  return "";
}

/** Plain-words description of the values a schema accepts. */
export function describe(schema: TSchema): string {
  if (typeof schema.expected === "string") return schema.expected;
  switch (schema[Kind]) {
    case "Literal":
      return JSON.stringify(schema.const);
    case "Union":
      return joinAlternatives((schema.anyOf as TSchema[]).map(describe));
    case "Integer":
      return `an integer${range(schema.minimum, schema.maximum)}`;
    case "Number":
      return `a number${range(schema.minimum, schema.maximum)}`;
    case "String":
      return schema.maxLength === undefined ? "a string" : `a string of at most ${schema.maxLength} characters`;
    case "Boolean":
      return "a boolean";
    case "Null":
      return "null";
    case "Array":
      return "an array";
    case "Object":
    case "Record":
      return "an object";
    default:
      return "a valid value";
  }
}

export function union<S extends TSchema[]>(schemas: [...S], expected?: string, options: SchemaOptions = {}): TUnion<S> {
  const expectation = expected ?? joinAlternatives(schemas.map(describe));
  return T.Union(schemas, { ...options, expected: expectation }) as TUnion<S>;
}

export function literals<const V extends LiteralValue[]>(values: V, options: SchemaOptions = {}): TUnion<Literals<V>> {
  const schemas = values.map((value) => T.Literal(value)) as TSchema[];
  return T.Union(schemas, {
    ...options,
    expected: joinAlternatives(values.map((value) => JSON.stringify(value))),
  }) as unknown as TUnion<Literals<V>>;
}

export function nullable<S extends TSchema>(schema: S, expected?: string): TUnion<[S, TNull]> {
  const members =
    schema[Kind] === "Union" && (schema.anyOf as TSchema[]).every((member) => member[Kind] === "Literal")
      ? (schema.anyOf as TSchema[]).map(describe)
      : [describe(schema)];
  return T.Union([schema, T.Null()], { expected: expected ?? joinAlternatives([...members, "null"]) });
}
