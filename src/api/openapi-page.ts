import { DOCS_URL } from "../routing/availability.ts";

type Json = Record<string, any>;

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** The content security policy of the reference page: its own inline style, nothing fetched, no script. */
export const REFERENCE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

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

function escape(text: unknown): string {
  return String(text ?? "").replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A schema's type in words: its type(s), a reference's name, or its forms. */
function typeOf(schema: Json): string {
  if (schema.$ref) return String(schema.$ref).split("/").pop() ?? "";
  if (Array.isArray(schema.type)) return schema.type.join(" or ");
  if (schema.type === "array" && schema.items) return `array of ${typeOf(schema.items) || "values"}`;
  if (schema.type) return String(schema.type) + (schema.format ? ` (${schema.format})` : "");
  if (schema.anyOf || schema.oneOf) return "one of several forms";
  if (schema.enum) return `one of ${schema.enum.map(String).join(", ")}`;
  return "";
}

/** A schema's fields as a nested list (two levels deep). */
function schemaSummary(schema: Json | undefined, depth = 0): string {
  if (!schema || depth > 2) return "";
  const target = schema.type === "array" && schema.items ? schema.items : schema;
  if (!target.properties) return "";
  const required = new Set<string>(target.required ?? []);
  return Object.entries(target.properties as Record<string, Json>)
    .map(([name, child]) => {
      const nested = depth < 1 ? schemaSummary(child, depth + 1) : "";
      const note = child.description ?? child.expected;
      return `<li><code>${escape(name)}</code>${required.has(name) ? " <em>required</em>" : ""} ${escape(typeOf(child))}${note ? ` — ${escape(note)}` : ""}${nested ? `<ul>${nested}</ul>` : ""}</li>`;
    })
    .join("");
}

/** One media type of a body: its content type, its type in words and its fields. */
function media(contentType: string, schema: Json | undefined): string {
  const fields = schemaSummary(schema);
  return `<code>${escape(contentType)}</code> ${escape(schema ? typeOf(schema) : "")}${fields ? `<ul>${fields}</ul>` : ""}`;
}

function operationHtml(path: string, method: string, operation: Json): string {
  const params = (operation.parameters ?? []) as Json[];
  const bodies = Object.entries((operation.requestBody?.content ?? {}) as Record<string, Json>);
  const responses = Object.entries((operation.responses ?? {}) as Record<string, Json>).map(([status, response]) => {
    const contents = Object.entries((response.content ?? {}) as Record<string, Json>);
    const success = status.startsWith("2");
    const shapes = contents.map(([type, item]) => media(type, item.schema)).join("<br>");
    return `<li><strong>${escape(status)}</strong> ${escape(response.description)}${success && shapes ? `<div>${shapes}</div>` : ""}</li>`;
  });
  return `<section class="op" id="${escape(`${method}-${path}`)}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code> ${escape(operation.summary)}</h3>${
    operation.description ? `<p>${escape(operation.description)}</p>` : ""
  }${params.length ? `<p>Parameters: ${params.map((param) => `<code>${escape(param.name)}</code> (${escape(param.in)}${param.required ? ", required" : ""})`).join(", ")}</p>` : ""}${
    bodies.length ? `<details><summary>Request body</summary>${bodies.map(([type, item]) => media(type, item.schema)).join("<br>")}</details>` : ""
  }<details><summary>Responses</summary><ul>${responses.join("")}</ul></details></section>`;
}

/** A readable API reference page rendered on the server from the OpenAPI document: no script, no CDN. */
export function renderReference(document: Json): string {
  const groups = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? "other";
      groups.set(tag, [...(groups.get(tag) ?? []), operationHtml(path, method, operation)]);
    }
  }
  const tags = [...groups.keys()];
  const contents = tags.map((tag) => `<a href="#tag-${escape(tag)}">${escape(tag)}</a>`).join(" · ");
  const sections = [...groups.entries()]
    .map(([tag, operations]) => `<h2 id="tag-${escape(tag)}">${escape(tag)}</h2>${operations.join("")}`)
    .join("");
  const availability = AVAILABILITY_CODES.map(
    ([code, status, meaning]) =>
      `<tr id="${DOCS_URL.split("#")[1]}-${code.replace(/_/g, "-")}"><td><code>${code}</code></td><td>${status}</td><td>${escape(meaning)}</td></tr>`,
  ).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Roundhouse API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}code{font:13px ui-monospace,monospace;background:#f4f4f4;padding:0 .2em}
.op{border-top:1px solid #ddd;padding:.3rem 0}.op h3{font-size:1rem;margin:.4rem 0}.m{display:inline-block;min-width:4.5em;font:bold 12px monospace;color:#fff;padding:.1em .4em;border-radius:3px;text-align:center}
.get{background:#2b7a4b}.post{background:#1f5fa8}.put{background:#8a5a00}.patch{background:#6b4fa0}.delete{background:#a33}table{border-collapse:collapse}td{border:1px solid #ddd;padding:.2em .5em}details{margin:.2rem 0}</style>
</head><body><h1>Roundhouse API reference</h1><p>Interface version ${escape(document.info.version)} (Roundhouse ${escape(document.info["x-roundhouse-build"])}). The machine-readable document is at <a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a>.</p>
<p>${escape(document.info.description)}</p><nav>${contents}</nav>
<h2 id="availability">Availability errors</h2><p>Routing failures carry <code>error.availability</code> (also under <code>error.metadata.availability</code>).</p>
<table><tr><th>code</th><th>HTTP</th><th>meaning</th></tr>${availability}</table>${sections}</body></html>`;
}
