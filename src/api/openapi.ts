import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import packageJson from "../../package.json" with { type: "json" };
import { ALIASES, OPERATIONS, PATH_TEMPLATES, REQUEST_BODIES } from "./openapi-operations.ts";
import { ERROR_ENVELOPE, PRESET_SCHEMA, successResponse } from "./openapi-responses.ts";

type Json = Record<string, any>;

/** The version of the interface the gateway serves (spec: "The interface version is 1.0.0"), not of the build. */
export const INTERFACE_VERSION = "1.0.0";

/** The failures any authenticated operation can answer; an upload adds 413. */
const ERRORS: Array<[number, string]> = [
  [400, "The request is invalid: the message names the field and what is allowed"],
  [401, "No API key, or one that is unknown, disabled or expired"],
  [403, "The key may not use this operation (its kind, or a deployment admin's operation)"],
  [404, "Not found, or not in the key's workspace"],
  [500, "An unexpected failure"],
];

/** Adds the error envelope's responses an operation does not list yet (SCIM answers them as application/scim+json). */
function addErrors(path: string, operation: Json, statuses?: number[]): void {
  const upload = operation.requestBody?.content?.["multipart/form-data"] !== undefined;
  const known = new Map<number, string>([...ERRORS, [413, "The upload is larger than the limit"], [503, "Not ready: starting or draining"]]);
  const errors = statuses ?? (upload ? [...ERRORS.map(([status]) => status), 413] : ERRORS.map(([status]) => status));
  const media = path.startsWith("/scim/") ? "application/scim+json" : "application/json";
  operation.responses ??= {};
  for (const status of errors) {
    operation.responses[status] ??= { description: known.get(status) ?? "Error", content: { [media]: { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } } };
  }
}

/** True when an operation documents a success answer (a 2xx with a schema, or a bodiless 204). */
function hasSuccess(operation: Json): boolean {
  return Object.entries((operation.responses ?? {}) as Record<string, Json>).some(
    ([status, response]) => status === "204" || (status.startsWith("2") && Object.values((response.content ?? {}) as Record<string, Json>).some((media) => media.schema && Object.keys(media.schema).length > 0)),
  );
}

/** Fills an operation's summary, description and success answer from OPERATIONS, and its errors. */
function complete(path: string, method: string, operation: Json): void {
  const name = `${method.toUpperCase()} ${path}`;
  const text = OPERATIONS[name];
  operation.requestBody ??= REQUEST_BODIES[name];
  if (text) {
    operation.summary ??= text.summary;
    operation.description ??= text.description;
    if (text.success && !hasSuccess(operation)) {
      const { status, response } = successResponse(text.success);
      operation.responses = { ...operation.responses, [status]: response };
    }
  }
  addErrors(path, operation, text?.errors);
}

/** The document's paths: aliases left out, wildcard routes under their templates with their parameters. */
function documentedPaths(paths: Record<string, Json>): Record<string, Json> {
  const result: Record<string, Json> = {};
  for (const [path, item] of Object.entries(paths)) {
    if (ALIASES.has(path)) continue;
    const template = PATH_TEMPLATES[path];
    if (!template) {
      result[path] = item;
      continue;
    }
    for (const operation of Object.values(item)) {
      operation.parameters = [
        ...((operation.parameters ?? []) as Json[]).filter((parameter) => parameter.in !== "path"),
        ...template.parameters.map(({ name, description }) => ({ name, in: "path", required: true, description, schema: { type: "string" } })),
      ];
    }
    result[template.path] = item;
  }
  return result;
}

/**
 * The OpenAPI document of the whole app, generated from the routes' TypeBox schemas. Our JSON parser is
 * a custom parse hook, which the generator cannot see, so request bodies are filled in from the routes;
 * every `/api/v1` operation lists the error envelope's statuses.
 */
export function buildOpenApi(app: AnyElysia): Json {
  const generated = toOpenAPISchema(app) as Json;
  for (const route of app.routes as Array<{ method: string; path: string; hooks: Json }>) {
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    const operation = generated.paths?.[path]?.[route.method.toLowerCase()];
    if (!operation) continue;
    const body = route.hooks?.body;
    if (body && (!operation.requestBody?.content || Object.keys(operation.requestBody.content).length === 0)) {
      operation.requestBody = { required: true, content: { "application/json": { schema: body } } };
    }
    const segment = path.split("/")[3] ?? "gateway";
    operation.tags ??= [segment === "v1" ? "messages" : segment];
  }
  const paths = documentedPaths(generated.paths ?? {});
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) complete(path, method, operation as Json);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Roundhouse",
      version: INTERFACE_VERSION,
      "x-roundhouse-build": packageJson.version,
      description:
        "On-prem model routing gateway with OpenRouter semantics. Every operation takes `Authorization: Bearer <API key>`. Errors are `{error: {code, message, metadata?, availability?}, service_metadata, user_id}`.",
    },
    servers: [{ url: "/" }],
    components: {
      ...generated.components,
      schemas: { ...generated.components?.schemas, ErrorEnvelope: ERROR_ENVELOPE, Preset: PRESET_SCHEMA },
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
