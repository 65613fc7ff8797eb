import { Kind, type TSchema } from "@sinclair/typebox";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { describe } from "../../../core/schema-builders.ts";
import { intendedError } from "../../../core/validation-errors.ts";

/**
 * Validation errors of the messages route worded as Anthropic's API words them
 * (`messages.1.role: Input should be 'user', 'assistant' or 'system'`, `max_tokens: Field required`):
 * Anthropic clients match on that text to recover (Claude Code, for one, stops sending system turns
 * when the role error names only 'user' and 'assistant').
 */

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** `/messages/1/role` as `messages.1.role`; the body itself as `body`. */
function dotted(pointer: string): string {
  if (pointer === "") return "body";
  return pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

/** `'a', 'b' or 'c'`, the way pydantic lists allowed literals. */
function literalList(schemas: TSchema[]): string | undefined {
  if (!schemas.every((schema) => schema[Kind] === "Literal")) return undefined;
  const values = schemas.map((schema) => (typeof schema.const === "string" ? `'${schema.const}'` : String(schema.const)));
  return values.length <= 1 ? values.join("") : `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
}

function phrase(error: ValueError): string {
  const { schema } = error;
  switch (error.type) {
    case ValueErrorType.Union: {
      const listed = literalList(schema.anyOf as TSchema[]);
      return listed !== undefined ? `Input should be ${listed}` : `Input should be ${describe(schema)}`;
    }
    case ValueErrorType.Literal:
      return `Input should be ${literalList([schema]) ?? JSON.stringify(schema.const)}`;
    case ValueErrorType.ObjectRequiredProperty:
      return "Field required";
    case ValueErrorType.ObjectAdditionalProperties:
      return "Extra inputs are not permitted";
    case ValueErrorType.String:
      return "Input should be a valid string";
    case ValueErrorType.Integer:
      return "Input should be a valid integer";
    case ValueErrorType.Number:
      return "Input should be a valid number";
    case ValueErrorType.Boolean:
      return "Input should be a valid boolean";
    case ValueErrorType.Array:
      return "Input should be a valid list";
    case ValueErrorType.Object:
      return "Input should be a valid dictionary";
    case ValueErrorType.Null:
      return "Input should be None";
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `Input should be greater than or equal to ${schema.minimum}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `Input should be less than or equal to ${schema.maximum}`;
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMinimum:
      return `Input should be greater than ${schema.exclusiveMinimum}`;
    case ValueErrorType.IntegerExclusiveMaximum:
    case ValueErrorType.NumberExclusiveMaximum:
      return `Input should be less than ${schema.exclusiveMaximum}`;
    case ValueErrorType.ArrayMinItems:
      return `List should have at least ${plural(schema.minItems, "item")} after validation, not ${(error.value as unknown[]).length}`;
    case ValueErrorType.ArrayMaxItems:
      return `List should have at most ${plural(schema.maxItems, "item")} after validation, not ${(error.value as unknown[]).length}`;
    case ValueErrorType.StringMinLength:
      return `String should have at least ${plural(schema.minLength, "character")}`;
    case ValueErrorType.StringMaxLength:
      return `String should have at most ${plural(schema.maxLength, "character")}`;
    case ValueErrorType.StringPattern:
      return `String should match pattern '${schema.pattern}'`;
    case ValueErrorType.ObjectMinProperties:
      return `Dictionary should have at least ${plural(schema.minProperties, "item")}`;
    case ValueErrorType.ObjectMaxProperties:
      return `Dictionary should have at most ${plural(schema.maxProperties, "item")}`;
    default:
      return error.message;
  }
}

/** One message for the first validation error of a messages body, in Anthropic's words. */
export function messagesValidationMessage(errors: Iterable<ValueError>): string {
  for (const first of errors) {
    const error = intendedError(first);
    return `${dotted(error.path)}: ${phrase(error)}`;
  }
  return "body: Input is invalid";
}
