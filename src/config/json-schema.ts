import { Config } from "./schema.ts";

type Json = Record<string, unknown>;

/** A key with a default may be left out of the file: only keys without one are required. */
function relaxDefaulted(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(relaxDefaulted);
  if (node === null || typeof node !== "object") return;
  const schema = node as Json;
  const properties = schema.properties as Record<string, Json> | undefined;
  if (properties && Array.isArray(schema.required)) {
    const required = (schema.required as string[]).filter((key) => properties[key]?.default === undefined);
    if (required.length > 0) schema.required = required;
    else delete schema.required;
  }
  for (const value of Object.values(schema)) relaxDefaulted(value);
}

/**
 * The config file's JSON Schema (draft-07), generated from the TypeBox schema the gateway validates
 * with: TypeBox schemas are JSON Schema, so only its internal markers (symbol keys) are dropped, and
 * keys with a default are not required.
 */
export function configJsonSchema(): Json {
  const plain = JSON.parse(JSON.stringify(Config)) as Json;
  relaxDefaulted(plain);
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "Roundhouse configuration",
    description:
      "The YAML configuration file of the Roundhouse gateway (`roundhouse serve --config PATH`). Every key is optional unless marked required; `${NAME}` in a string is replaced by the environment variable NAME.",
    ...plain,
  };
}
