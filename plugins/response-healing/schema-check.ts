/**
 * A request's `json_schema` as a check of repaired answers. The schema comes from the client, so it is
 * interpreted (`@cfworker/json-schema`: no code generated from it, nothing cached across requests),
 * in the draft its `$schema` names (2020-12 when it names none).
 */
import { type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema";

const DRAFTS: Array<[RegExp, SchemaDraft]> = [
  [/draft-04/, "4"],
  [/draft-07/, "7"],
  [/2019-09/, "2019-09"],
];

/**
 * Whether a value matches the schema; undefined when the schema cannot be used (an unresolvable
 * `$ref`, a keyword of the wrong type): healing then checks nothing rather than failing the answer.
 */
export function schemaCheck(schema: Record<string, unknown>): (value: unknown) => boolean | undefined {
  const named = typeof schema.$schema === "string" ? schema.$schema : "";
  const draft = DRAFTS.find(([pattern]) => pattern.test(named))?.[1] ?? "2020-12";
  let validator: Validator;
  try {
    validator = new Validator(schema as Schema, draft);
  } catch {
    return () => undefined;
  }
  return (value) => {
    try {
      return validator.validate(value).valid;
    } catch {
      return undefined;
    }
  };
}
