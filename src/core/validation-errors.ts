import { Kind, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { describe } from "./schema-builders.ts";

function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Renders a JSON pointer such as `/a/0/b` as `root.a[0].b`. */
export function renderPath(pointer: string | string[], root: string): string {
  const segments = typeof pointer === "string" ? pointerSegments(pointer) : pointer;
  let rendered = root;
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) rendered += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) rendered += rendered === "" ? segment : `.${segment}`;
    else rendered += `[${JSON.stringify(segment)}]`;
  }
  return rendered;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isDiscriminator(schema: TSchema): boolean {
  if (schema[Kind] === "Literal") return true;
  if (schema[Kind] !== "Union") return false;
  return (schema.anyOf as TSchema[]).every(
    (member) =>
      member[Kind] === "Literal" ||
      (member[Kind] === "String" && typeof member.pattern === "string") ||
      (member[Kind] === "Union" && isDiscriminator(member)),
  );
}

interface Fit {
  /** The value has the variant's base type and every discriminator property matches. */
  fits: boolean;
  matched: number;
}

function objectFit(schema: TSchema, value: Record<string, unknown>): Fit {
  const required: string[] = Array.isArray(schema.required) ? schema.required : [];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  let matched = 0;
  let mismatched = 0;
  for (const [key, property] of Object.entries(properties)) {
    if (!isDiscriminator(property) || (!required.includes(key) && !(key in value))) continue;
    if (Value.Check(property, value[key])) matched += 1;
    else mismatched += 1;
  }
  return { fits: mismatched === 0, matched };
}

/** How well a value suits a union variant; undefined when its base type differs. */
function fit(schema: TSchema, value: unknown): Fit | undefined {
  const exact = (matches: boolean): Fit | undefined => (matches ? { fits: true, matched: 0 } : undefined);
  switch (schema[Kind]) {
    case "Object":
      return isPlainObject(value) ? objectFit(schema, value) : undefined;
    case "Record":
      return exact(isPlainObject(value));
    case "Array":
      return exact(Array.isArray(value));
    case "String":
      return exact(typeof value === "string");
    case "Number":
    case "Integer":
      return exact(typeof value === "number");
    case "Boolean":
      return exact(typeof value === "boolean");
    case "Union": {
      const fits = (schema.anyOf as TSchema[]).flatMap((member) => fit(member, value) ?? []);
      if (fits.length === 0) return undefined;
      return { fits: fits.some((each) => each.fits), matched: Math.max(...fits.map((each) => each.matched)) };
    }
    default:
      return undefined;
  }
}

/** The variant the value was evidently meant for, whose own error is the useful one. */
function intendedVariant(variants: TSchema[], value: unknown): number | undefined {
  const fits = variants.map((variant) => fit(variant, value));
  const indices = (keep: (each: Fit) => boolean) =>
    fits.flatMap((each, index) => (each !== undefined && keep(each) ? [index] : []));
  const mostMatched = (candidates: number[]) => {
    const best = Math.max(0, ...candidates.map((index) => fits[index]?.matched ?? 0));
    return best === 0 ? [] : candidates.filter((index) => fits[index]?.matched === best);
  };
  const single = (candidates: number[]) => (candidates.length === 1 ? candidates[0] : undefined);
  const fitting = indices((each) => each.fits);
  // A catch-all variant (such as the plugin of an unknown id) yields to any variant that fits.
  const specific = fitting.filter((index) => variants[index]!.catchAll !== true);
  if (specific.length > 0) return single(specific.length === 1 ? specific : mostMatched(specific));
  const nearSpecific = mostMatched(indices(() => true).filter((index) => variants[index]!.catchAll !== true));
  if (fitting.length > 0 && nearSpecific.length === 1) return nearSpecific[0];
  if (fitting.length > 0) return single(fitting.length === 1 ? fitting : mostMatched(fitting));
  const sameType = indices(() => true);
  const closest = mostMatched(sameType);
  return single(closest.length > 0 ? closest : sameType);
}

function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/** The error inside the union variant the value was meant for; the union's own error when none stands out. */
export function intendedError(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union) return error;
  const variant = intendedVariant(error.schema.anyOf as TSchema[], error.value);
  const nested = variant === undefined ? undefined : error.errors[variant]?.First();
  return nested === undefined ? error : intendedError(nested);
}

function formatError(error: ValueError, root: string): string {
  const { schema } = error;
  const at = renderPath(error.path, root);
  switch (error.type) {
    case ValueErrorType.Union: {
      const nested = intendedError(error);
      if (nested !== error) return formatError(nested, root);
      return `${at}: expected ${describe(schema)}`;
    }
    case ValueErrorType.ObjectAdditionalProperties: {
      const segments = pointerSegments(error.path);
      const name = segments.pop() ?? "";
      const parent = renderPath(segments, root);
      if (schema[Kind] === "Record") {
        return `${parent}: key ${JSON.stringify(name)} is not allowed (expected ${describe(schema)})`;
      }
      return `${parent}: unknown property ${JSON.stringify(name)}`;
    }
    case ValueErrorType.ObjectRequiredProperty:
      return `${at}: is required`;
    case ValueErrorType.ObjectMaxProperties:
      return `${at}: must have at most ${plural(schema.maxProperties, "property", "properties")}`;
    case ValueErrorType.ObjectMinProperties:
      return `${at}: must have at least ${plural(schema.minProperties, "property", "properties")}`;
    case ValueErrorType.ArrayMaxItems:
      return `${at}: must have at most ${plural(schema.maxItems, "item")}`;
    case ValueErrorType.ArrayMinItems:
      return `${at}: must have at least ${plural(schema.minItems, "item")}`;
    case ValueErrorType.ArrayUniqueItems:
      return `${at}: must not contain duplicate items`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `${at}: must be at most ${schema.maximum}`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `${at}: must be at least ${schema.minimum}`;
    case ValueErrorType.IntegerExclusiveMaximum:
    case ValueErrorType.NumberExclusiveMaximum:
      return `${at}: must be less than ${schema.exclusiveMaximum}`;
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMinimum:
      return `${at}: must be greater than ${schema.exclusiveMinimum}`;
    case ValueErrorType.IntegerMultipleOf:
    case ValueErrorType.NumberMultipleOf:
      return `${at}: must be a multiple of ${schema.multipleOf}`;
    case ValueErrorType.StringMaxLength:
      return `${at}: must be at most ${plural(schema.maxLength, "character")}`;
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1
        ? `${at}: must not be empty`
        : `${at}: must be at least ${plural(schema.minLength, "character")}`;
    case ValueErrorType.StringPattern:
      return typeof schema.expected === "string"
        ? `${at}: expected ${schema.expected}`
        : `${at}: must match the pattern ${schema.pattern}`;
    case ValueErrorType.StringFormat:
      return `${at}: must be a valid ${schema.format}`;
    case ValueErrorType.Array:
    case ValueErrorType.Boolean:
    case ValueErrorType.Integer:
    case ValueErrorType.Literal:
    case ValueErrorType.Null:
    case ValueErrorType.Number:
    case ValueErrorType.Object:
    case ValueErrorType.String:
      return `${at}: expected ${describe(schema)}`;
    default:
      return `${at}: ${error.message.toLowerCase()}`;
  }
}

/** A key whose value is a credential: its value is never repeated in a message. */
const SECRET_KEY = /(^|[_-])(key|secret|token|password|credential)s?$/i;

/** The value a message quotes: JSON, cut at 60 characters; a secret's is not shown. */
function shownValue(error: ValueError): string {
  if (SECRET_KEY.test(pointerSegments(error.path).at(-1) ?? "")) return "a value not shown (a secret)";
  return quotedValue(error.value);
}

/** A value as an error message quotes it: its JSON, cut to 60 characters; "nothing" when absent. */
export function quotedValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The message with the value given (`, got 42`), as the config's own errors say it; none for a missing or unknown key. */
function formatErrorWithValue(error: ValueError, root: string): string {
  const message = formatError(error, root);
  const cause = intendedError(error);
  if (cause.type === ValueErrorType.ObjectAdditionalProperties || cause.type === ValueErrorType.ObjectRequiredProperty) return message;
  return `${message}, got ${shownValue(cause)}`;
}

export interface FormatOptions {
  /**
   * Quote the value found after the expectation (`tools.moderation.model: expected a string, got 42`),
   * as config problems do. Off for request bodies, whose messages name the field only.
   */
  withValue?: boolean;
}

/** One human message for the first validation error, naming the offending field. */
export function formatValidationError(errors: Iterable<ValueError>, root: string, options: FormatOptions = {}): string {
  for (const error of errors) return options.withValue ? formatErrorWithValue(error, root) : formatError(error, root);
  return `${root}: invalid value`;
}

const checkers = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checker(schema: TSchema): TypeCheck<TSchema> {
  let compiled = checkers.get(schema);
  if (compiled === undefined) {
    compiled = TypeCompiler.Compile(schema);
    checkers.set(schema, compiled);
  }
  return compiled;
}

/** Validates outside Elysia: null when the value conforms, otherwise the formatted message. */
export function validate(schema: TSchema, value: unknown, root: string, options: FormatOptions = {}): string | null {
  const compiled = checker(schema);
  if (compiled.Check(value)) return null;
  return formatValidationError(compiled.Errors(value), root, options);
}
