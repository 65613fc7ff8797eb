import { configJsonSchema } from "./json-schema.ts";
import { ENV_OVERRIDES } from "./load.ts";

type Json = Record<string, any>;

/** The pattern a mapping's keys must match, unless any key goes. */
function keyPattern(schema: Json): string | undefined {
  const pattern = Object.keys(schema.patternProperties ?? {})[0];
  return pattern === undefined || pattern === "^(.*)$" || pattern === "^.*$" ? undefined : pattern;
}

/** The type of a schema in a few words, with its bounds. */
function typeOf(schema: Json): string {
  if (Array.isArray(schema.anyOf)) {
    if (schema.anyOf.every((variant: Json) => variant.const !== undefined)) return `one of ${schema.anyOf.map((v: Json) => `\`${v.const}\``).join(", ")}`;
    return schema.anyOf.map(typeOf).join(" or ");
  }
  const bounds = [
    schema.minimum !== undefined ? `≥ ${schema.minimum}` : "",
    schema.maximum !== undefined ? `≤ ${schema.maximum}` : "",
    schema.pattern !== undefined ? `matching \`${schema.pattern}\`` : "",
    schema.format !== undefined ? `format ${schema.format}` : "",
  ].filter(Boolean);
  const base =
    schema.type === "array"
      ? `list of ${typeOf(schema.items ?? {})}`
      : schema.type === "object" && schema.patternProperties
        ? keyPattern(schema) === undefined
          ? "mapping"
          : `mapping (keys matching \`${keyPattern(schema)}\`)`
        : schema.type === "object" && !schema.properties
          ? "mapping"
          : (schema.type ?? "any");
  return bounds.length > 0 ? `${base} (${bounds.join(", ")})` : base;
}

function defaultOf(schema: Json, required: boolean): string {
  if (schema.default !== undefined) {
    const text = JSON.stringify(schema.default);
    return text === "{}" ? "" : `\`${text.length > 80 ? `${text.slice(0, 77)}...` : text}\``;
  }
  return required ? "**required**" : "";
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** Rows of every key, depth first: `server.port`, `models[].endpoints[].provider`, `providers.<slug>.type`. */
function rows(schema: Json, prefix: string, out: string[]): void {
  const properties: Record<string, Json> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  for (const [key, child] of Object.entries(properties)) {
    const path = prefix ? `${prefix}.${key}` : key;
    out.push(`| \`${path}\` | ${cell(typeOf(child))} | ${cell(defaultOf(child, required.has(key)))} | ${cell(child.description ?? "")} |`);
    if (child.properties) rows(child, path, out);
    if (child.type === "array" && child.items?.properties) rows(child.items, `${path}[]`, out);
    if (child.patternProperties) for (const entry of Object.values<Json>(child.patternProperties)) if (entry.properties) rows(entry, `${path}.${keyPattern(child) === undefined ? "<name>" : "<slug>"}`, out);
  }
}

/** docs/configuration.md, generated from the config schema (`npm run docs:config`); a test keeps the file in step. */
export function configurationReference(): string {
  const schema = configJsonSchema();
  const out: string[] = [];
  rows(schema, "", out);
  return `<!-- Generated from src/config/schema.ts by \`npm run docs:config\`; do not edit by hand. -->
# Configuration reference

${schema.description}

Check a file as \`serve\` would with \`roundhouse config check --config roundhouse.yaml\` (exit 0, or exit 2
with every problem, each naming its key). \`roundhouse config schema > roundhouse.schema.json\` prints this
schema as JSON Schema; editors using the YAML language server (VS Code's YAML extension, Neovim, Helix)
then complete and check the file when its first line is:

\`\`\`yaml
# yaml-language-server: $schema=./roundhouse.schema.json
\`\`\`

Environment variables override keys of the file: ${ENV_OVERRIDES.map((o) => `${o.name} (\`${o.path.join(".")}\`)`).join(", ")}, and
ROUNDHOUSE_SSO_CLIENT_SECRET (\`sso.client_secret\`, when the file leaves it out).

| key | type | default | description |
|---|---|---|---|
${out.join("\n")}
`;
}
