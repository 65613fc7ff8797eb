/**
 * Success answers of the OpenAPI document for routes whose answer is not generated from a schema:
 * the `success` kinds of openapi-operations.ts. Each names the fields clients rely on; others may follow.
 */
type Json = Record<string, any>;

const open = (properties: Json = {}, required: string[] = []): Json => ({ type: "object", additionalProperties: true, properties, ...(required.length ? { required } : {}) });
const json = (schema: Json): Json => ({ "application/json": { schema } });
const data = (schema: Json): Json => json(open({ data: schema }, ["data"]));
const bytes = (type: string): Json => ({ [type]: { schema: { type: "string", format: "binary" } } });

/** The content of each kind of success answer (none: no body). */
const CONTENT: Record<string, Json | null> = {
  status: json(open({ status: { type: "string", example: "ok" } }, ["status"])),
  metrics: { "text/plain": { schema: { type: "string", description: "Prometheus text exposition format 0.0.4" } } },
  html: { "text/html": { schema: { type: "string" } } },
  scim: { "application/scim+json": { schema: open({ schemas: { type: "array", items: { type: "string" } } }) } },
  none: null,
  data: data(open()),
  dataList: data({ type: "array", items: open() }),
  preset: data({ $ref: "#/components/schemas/Preset" }),
  connections: data({ type: "array", items: open({ key: { type: "string" } }, ["key"]) }),
  models: json(open({ data: { type: "array", items: open({ id: { type: "string" } }, ["id"]) } }, ["data"])),
  count: data(open({ count: { type: "integer" } }, ["count"])),
  providers: data({ type: "array", items: open({ name: { type: "string" }, slug: { type: "string" } }, ["name", "slug"]) }),
  completion: { ...json(open({ id: { type: "string" }, model: { type: "string" }, usage: open() })), "text/event-stream": { schema: { type: "string", description: "Server-sent events, when the request sets stream: true" } } },
  tokens: json(open({ input_tokens: { type: "integer" } }, ["input_tokens"])),
  object: json(open()),
  audio: bytes("audio/mpeg"),
  video: bytes("video/mp4"),
  ndjson: { "application/x-ndjson": { schema: { type: "string", description: "One JSON audit entry per line" } } },
};

/** A preset with its designated version, as the spec describes it. */
export const PRESET_SCHEMA: Json = open(
  {
    id: { type: "string", format: "uuid" },
    slug: { type: "string" },
    name: { type: "string" },
    description: { type: ["string", "null"] },
    status: { type: "string" },
    status_updated_at: { type: ["string", "null"] },
    created_at: { type: "string" },
    updated_at: { type: "string" },
    creator_user_id: { type: "string" },
    workspace_id: { type: "string", format: "uuid" },
    designated_version_id: { type: "string", format: "uuid" },
    designated_version: open({
      id: { type: "string", format: "uuid" },
      preset_id: { type: "string", format: "uuid" },
      version: { type: "integer" },
      config: open(),
      system_prompt: { type: "string" },
      creator_id: { type: "string" },
      created_at: { type: "string" },
      updated_at: { type: "string" },
    }),
  },
  ["id", "slug", "name", "status", "designated_version_id", "designated_version"],
);

/** The error envelope every failure answers (src/core/errors.ts), as a JSON schema. */
export const ERROR_ENVELOPE: Json = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "integer" }, message: { type: "string" }, metadata: { type: "object", additionalProperties: true }, availability: { type: "object", additionalProperties: true } },
    },
    service_metadata: { type: ["object", "null"], additionalProperties: true },
    user_id: { type: ["string", "null"] },
  },
};

const DESCRIPTIONS: Record<string, string> = { "200": "OK", "201": "Created", "202": "Accepted", "204": "No content" };

/** The OpenAPI response of a success kind (`kind` or `kind:status`), with its status. */
export function successResponse(spec: string): { status: string; response: Json } {
  const [kind, status = "200"] = spec.split(":") as [string, string?];
  if (!(kind in CONTENT)) throw new Error(`unknown success kind ${kind}`);
  const content = CONTENT[kind];
  return { status, response: { description: DESCRIPTIONS[status] ?? "OK", ...(content ? { content } : {}) } };
}
