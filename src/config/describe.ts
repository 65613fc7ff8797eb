import type { TSchema } from "@sinclair/typebox";

/**
 * A schema with its description: the text of the configuration reference (docs/configuration.md),
 * of `roundhouse config schema` and of an editor's hover.
 */
export function described<S extends TSchema>(description: string, schema: S): S {
  return { ...schema, description };
}
