import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import packageJson from "../../package.json" with { type: "json" };
import { DOCS_URL } from "../routing/availability.ts";

type Json = Record<string, any>;

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** The version of the interface the gateway serves (spec: "The interface version is 1.0.0"), not of the build. */
export const INTERFACE_VERSION = "1.0.0";

const AVAILABILITY_CODES: Array<[string, number, string]> = [
  ["model_not_found", 400, "No model of that id in the catalog."],
  ["wrong_endpoint", 400, "The model exists but not for this kind of request."],
  ["no_endpoints", 404, "Every endpoint of the model is disabled."],
  ["model_deprecated", 404, "The model is deprecated."],
  ["model_unavailable_upstream", 404, "Every provider answered that it does not know the model."],
  ["capacity_exhausted", 429, "Every provider answered 429; retry after retry_after seconds."],
  ["temporarily_unavailable", 503, "Every provider failed with a transient error (5xx, timeouts, refused connections); error.metadata.previous_errors names each cause."],
  ["region_restricted", 403, "No endpoint in an allowed region."],
  ["privacy_restricted", 404, "No endpoint meets data_collection or zdr."],
  ["constraint_filtered", 404, "The request's constraints (max_price, quantizations, ...) excluded every endpoint."],
  ["free_variant_ended", 404, "The free variant of the model is no longer offered."],
];

/** The error envelope every failure answers (src/core/errors.ts), as a JSON schema. */
const ERROR_ENVELOPE: Json = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "integer" }, message: { type: "string" }, metadata: { type: "object", additionalProperties: true }, availability: { type: "object", additionalProperties: true } },
    },
    service_metadata: { nullable: true, type: "object", additionalProperties: true },
    user_id: { nullable: true, type: "string" },
  },
};

/** The failures any authenticated operation can answer; an upload adds 413. */
const ERRORS: Array<[number, string]> = [
  [400, "The request is invalid: the message names the field and what is allowed"],
  [401, "No API key, or one that is unknown, disabled or expired"],
  [403, "The key may not use this operation (its kind, or a deployment admin's operation)"],
  [404, "Not found, or not in the key's workspace"],
  [500, "An unexpected failure"],
];

/** Adds the error envelope's responses an operation does not list yet. */
function addErrors(operation: Json): void {
  const upload = operation.requestBody?.content?.["multipart/form-data"] !== undefined;
  const errors: Array<[number, string]> = upload ? [...ERRORS, [413, "The upload is larger than the limit"]] : ERRORS;
  operation.responses ??= {};
  for (const [status, description] of errors) {
    operation.responses[status] ??= { description, content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } } };
  }
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
    if (path.startsWith("/api/v1/")) addErrors(operation);
  }
  return {
    openapi: "3.0.3",
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
      schemas: { ...generated.components?.schemas, ErrorEnvelope: ERROR_ENVELOPE },
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearer: [] }],
    paths: generated.paths,
  };
}

function escape(text: unknown): string {
  return String(text ?? "").replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function schemaSummary(schema: Json | undefined, depth = 0): string {
  if (!schema || depth > 2) return "";
  if (schema.properties) {
    const required = new Set<string>(schema.required ?? []);
    const rows = Object.entries(schema.properties as Record<string, Json>).map(
      ([name, child]) =>
        `<li><code>${escape(name)}</code>${required.has(name) ? " <em>required</em>" : ""} ${escape(child.type ?? (child.anyOf ? "one of several forms" : ""))}${
          child.expected ? ` — ${escape(child.expected)}` : ""
        }${child.properties && depth < 1 ? `<ul>${schemaSummary(child, depth + 1)}</ul>` : ""}</li>`,
    );
    return rows.join("");
  }
  return "";
}

/** A readable API reference page rendered on the server from the OpenAPI document: no script, no CDN. */
export function renderReference(document: Json): string {
  const groups = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? "other";
      const params = (operation.parameters ?? []) as Json[];
      const body = operation.requestBody?.content?.["application/json"]?.schema;
      const html = `<section class="op"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>${
        operation.summary ? `<p>${escape(operation.summary)}</p>` : ""
      }${params.length ? `<p>Parameters: ${params.map((param) => `<code>${escape(param.name)}</code> (${escape(param.in)})`).join(", ")}</p>` : ""}${
        body ? `<details><summary>Request body</summary><ul>${schemaSummary(body)}</ul></details>` : ""
      }</section>`;
      groups.set(tag, [...(groups.get(tag) ?? []), html]);
    }
  }
  const sections = [...groups.entries()]
    .map(([tag, operations]) => `<h2 id="${escape(tag)}">${escape(tag)}</h2>${operations.join("")}`)
    .join("");
  const availability = AVAILABILITY_CODES.map(
    ([code, status, meaning]) =>
      `<tr id="${DOCS_URL.split("#")[1]}-${code.replace(/_/g, "-")}"><td><code>${code}</code></td><td>${status}</td><td>${escape(meaning)}</td></tr>`,
  ).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Roundhouse API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}code{font:13px ui-monospace,monospace;background:#f4f4f4;padding:0 .2em}
.op{border-top:1px solid #ddd;padding:.3rem 0}.m{display:inline-block;min-width:4.5em;font:bold 12px monospace;color:#fff;padding:.1em .4em;border-radius:3px;text-align:center}
.get{background:#2b7a4b}.post{background:#1f5fa8}.put{background:#8a5a00}.patch{background:#6b4fa0}.delete{background:#a33}table{border-collapse:collapse}td{border:1px solid #ddd;padding:.2em .5em}</style>
</head><body><h1>Roundhouse API reference</h1><p>Interface version ${escape(document.info.version)} (Roundhouse ${escape(document.info["x-roundhouse-build"])}). The machine-readable document is at <a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a>.</p>
<p>${escape(document.info.description)}</p>
<h2 id="availability">Availability errors</h2><p>Routing failures carry <code>error.availability</code> (also under <code>error.metadata.availability</code>).</p>
<table><tr><th>code</th><th>HTTP</th><th>meaning</th></tr>${availability}</table>${sections}</body></html>`;
}
