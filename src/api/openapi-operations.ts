/**
 * What the OpenAPI document says of each operation that its route does not say itself: a summary, a
 * description and, where the route's answer is not generated from a schema, the shape of its success
 * answer (see `SUCCESS` in openapi-responses.ts). A route's own `detail` wins; the document test fails
 * on an operation that has neither, so a new route cannot go undocumented.
 */
export interface OperationText {
  summary: string;
  description: string;
  /** The success answer when the route has no response schema: `kind` or `kind:status` (SUCCESS's keys). */
  success?: string;
  /** Statuses of the error envelope the operation answers, when not the authenticated set (400, 401, 403, 404, 500). */
  errors?: number[];
}

const op = (summary: string, description: string, success?: string, errors?: number[]): OperationText => ({ summary, description, success, errors });

const MGMT = "Management key (or a signed-in session of a workspace admin); acts on the key's workspace.";
const KEYS = "A management or inference key of the workspace (not an intern's); acts on the key's workspace.";
const CATALOG = "A management or inference key (not an intern's).";
const ADMIN = "The deployment admin's management key (or an organization owner or admin signed in).";
const VAULT = "Intern API programme only (404 outside it); acts on the key's workspace.";
const SCIM = "SCIM 2.0 (RFC 7644) for the identity provider, with a SCIM token; answers application/scim+json.";
const INFER = "An inference key (or management key); routed by the request's model, provider preferences and plugins.";

export const OPERATIONS: Record<string, OperationText> = {
  "GET /healthz": op("Liveness", "Answers `{status: \"ok\"}` while the process serves HTTP. No key.", "status", [400, 500]),
  "GET /readyz": op("Readiness", "Answers 200 while the database answers and the gateway is not shutting down, else 503 naming the failing check. No key.", "status", [400, 500, 503]),
  "GET /metrics": op("Prometheus metrics", "The gateway's counters and histograms in the Prometheus text format; needs a management key when `metrics.require_key` is set; 404 when metrics are off.", "metrics", [400, 403, 404, 500]),
  "POST /session/sign-out": op("Sign out", "Ends the session of the cookie (CSRF token required).", "none:204", [400, 401, 403, 500]),
  "GET /session": op("Current session", "The signed-in member (or management key), its workspaces and role.", undefined, [400, 401, 500]),
  "GET /scim/v2/ServiceProviderConfig": op("SCIM service provider configuration", `What this SCIM server supports. ${SCIM}`, "scim"),
  "GET /scim/v2/ResourceTypes": op("SCIM resource types", `The User and Group resource types. ${SCIM}`, "scim"),
  "GET /scim/v2/Schemas": op("SCIM schemas", `The schemas of the resources served. ${SCIM}`, "scim"),
  "GET /scim/v2/Schemas/{id}": op("A SCIM schema", `One schema by its URN. ${SCIM}`, "scim"),
  "GET /scim/v2/Users": op("List SCIM users", `Members as SCIM Users, with filter and paging. ${SCIM}`, "scim"),
  "POST /scim/v2/Users": op("Provision a user", `Creates a member from a SCIM User. ${SCIM}`, "scim:201"),
  "GET /scim/v2/Users/{id}": op("A SCIM user", `One member as a SCIM User. ${SCIM}`, "scim"),
  "PUT /scim/v2/Users/{id}": op("Replace a SCIM user", `Replaces a member's attributes. ${SCIM}`, "scim"),
  "PATCH /scim/v2/Users/{id}": op("Patch a SCIM user", `Applies SCIM patch operations (e.g. active: false deactivates). ${SCIM}`, "scim"),
  "DELETE /scim/v2/Users/{id}": op("Deprovision a user", `Deletes the member the User stands for. ${SCIM}`, "none:204"),
  "GET /scim/v2/Groups": op("List SCIM groups", `Groups pushed by the identity provider. ${SCIM}`, "scim"),
  "POST /scim/v2/Groups": op("Create a SCIM group", `Stores a group and its members; group mappings turn it into workspace memberships. ${SCIM}`, "scim:201"),
  "GET /scim/v2/Groups/{id}": op("A SCIM group", `One group with its members. ${SCIM}`, "scim"),
  "PUT /scim/v2/Groups/{id}": op("Replace a SCIM group", `Replaces a group's name and members. ${SCIM}`, "scim"),
  "PATCH /scim/v2/Groups/{id}": op("Patch a SCIM group", `Adds or removes members, or renames the group. ${SCIM}`, "scim"),
  "DELETE /scim/v2/Groups/{id}": op("Delete a SCIM group", `Deletes a group. ${SCIM}`, "none:204"),
  "GET /auth": op("OAuth consent page", "The HTML page where a signed-in member approves an application's request for a key (OAuth PKCE flow).", "html", [400, 401, 500]),
  "POST /auth": op("OAuth consent decision", "The consent form's answer (signed-in session and its CSRF token); redirects to the application's callback with a code.", "html", [400, 401, 403, 500]),
  "GET /api/v1/key": op("The calling key", "The key of the request's Authorization header: its limits, usage and kind. Any key, an intern's included.", "data"),
  "GET /api/v1/keys": op("List API keys", `The workspace's API keys (never their secrets). ${MGMT}`),
  "POST /api/v1/keys": op("Create an API key", `Creates a key; its secret is shown once, in this answer. ${MGMT}`),
  "GET /api/v1/keys/{hash}": op("An API key", `One key by its hash. ${MGMT}`),
  "PATCH /api/v1/keys/{hash}": op("Update an API key", `Renames, disables or sets the limit of a key. ${MGMT}`),
  "DELETE /api/v1/keys/{hash}": op("Delete an API key", `Deletes a key; requests with it then get 401. ${MGMT}`),
  "GET /api/v1/workspaces/": op("List workspaces", "The workspaces the key may see. Management key.", undefined),
  "POST /api/v1/workspaces/": op("Create a workspace", "Creates a workspace with its own keys, presets, guardrails and data. Deployment admin.", undefined),
  "GET /api/v1/workspaces/{id}": op("A workspace", "One workspace by id or slug. Management key.", undefined),
  "PATCH /api/v1/workspaces/{id}": op("Update a workspace", "Renames a workspace or sets its description and data region. Management key.", undefined),
  "DELETE /api/v1/workspaces/{id}": op("Delete a workspace", "Deletes a workspace that has no active keys.", undefined),
  "GET /api/v1/workspaces/{id}/budgets": op("Workspace budgets", "The workspace's spend limits per interval with what is spent. Management key.", undefined),
  "GET /api/v1/workspaces/{id}/budgets/{interval}": op("A workspace budget", "The spend limit of one interval (daily, weekly, monthly, lifetime) and what is spent. Management key.", undefined),
  "PUT /api/v1/workspaces/{id}/budgets/{interval}": op("Set a workspace budget", "Sets the spend limit of one interval; limits must strictly decrease as the interval narrows. Management key.", undefined),
  "DELETE /api/v1/workspaces/{id}/budgets/{interval}": op("Remove a workspace budget", "Removes the spend limit of one interval. Management key.", undefined),
  "GET /api/v1/interns/": op("List interns", `The workspace's interns. ${VAULT}`, "dataList"),
  "POST /api/v1/interns/": op("Create an intern", `Creates an intern in the workspace. ${VAULT}`, "data:201"),
  "GET /api/v1/interns/{internId}": op("An intern", `One intern; an intern's own key sees only itself. ${VAULT}`, "data"),
  "PATCH /api/v1/interns/{internId}": op("Update an intern", `Renames an intern or changes its settings. ${VAULT}`, "data"),
  "DELETE /api/v1/interns/{internId}": op("Delete an intern", `Deletes an intern and its keys; answers 202 {deleting: true}. ${VAULT}`, "data:202"),
  "POST /api/v1/interns/{internId}/keys": op("Create an intern key", `A key confined to the intern; its secret is shown once. ${VAULT}`, "data:201"),
  "GET /api/v1/features": op("Intern features", `The features an intern can add, with the connections each requires. ${VAULT}`, "dataList"),
  "GET /api/v1/interns/{internId}/features": op("An intern's features", `The features added to an intern, with whether their required connections are usable. ${VAULT}`, "dataList"),
  "POST /api/v1/interns/{internId}/features": op("Add a feature to an intern", `Adds a feature after checking its required connections against the intern's connection list. ${VAULT}`, "data:201"),
  "DELETE /api/v1/interns/{internId}/features/{featureId}": op("Remove a feature from an intern", `Removes a feature from an intern. ${VAULT}`, "data"),
  "POST /api/v1/presets/{slug}/responses": op("Create a preset from a Responses request", "Creates the preset, or a new version of it, from a Responses-style body; only fields that overlap the preset config are kept. Management key.", "preset"),
  "POST /api/v1/presets/{slug}/chat/completions": op("Create a preset from a chat request", "Creates the preset, or a new version of it, from a chat-completions body. Management key.", "preset"),
  "POST /api/v1/presets/{slug}/messages": op("Create a preset from a messages request", "Creates the preset, or a new version of it, from a messages-style body. Management key.", "preset"),
  "GET /api/v1/presets/": op("List presets", `The workspace's presets with their designated versions. ${MGMT}`, "dataList"),
  "GET /api/v1/presets/{slug}": op("A preset", `One preset with its designated version. ${MGMT}`, "preset"),
  "GET /api/v1/presets/{slug}/versions": op("A preset's versions", `Every version of a preset, newest first. ${MGMT}`, "dataList"),
  "GET /api/v1/presets/{slug}/versions/{version}": op("A preset version", `One version of a preset by number. ${MGMT}`, "data"),
  "GET /api/v1/guardrails/": op("List guardrails", `The workspace's guardrails (spend limits, allowed models and providers, data policy). ${MGMT}`),
  "POST /api/v1/guardrails/": op("Create a guardrail", `Creates a guardrail; assign it to keys or members to apply it. ${MGMT}`),
  "GET /api/v1/guardrails/assignments/keys": op("Key assignments", `Every key assignment of the workspace's guardrails. ${MGMT}`),
  "GET /api/v1/guardrails/{id}": op("A guardrail", `One guardrail. ${MGMT}`),
  "PATCH /api/v1/guardrails/{id}": op("Update a guardrail", `Changes a guardrail's rules; keys it is assigned to follow at once. ${MGMT}`),
  "DELETE /api/v1/guardrails/{id}": op("Delete a guardrail", `Deletes a guardrail and its assignments. ${MGMT}`),
  "GET /api/v1/guardrails/{id}/assignments/keys": op("A guardrail's keys", `The keys a guardrail is assigned to. ${MGMT}`),
  "POST /api/v1/guardrails/{id}/assignments/keys": op("Assign a guardrail to keys", `Assigns a guardrail to keys (replacing what each held). ${MGMT}`),
  "POST /api/v1/guardrails/{id}/assignments/keys/remove": op("Remove a guardrail from keys", `Removes a guardrail from keys. ${MGMT}`),
  "GET /api/v1/organization/members": op("Organization members", `The organization's members with their roles. ${ADMIN}`),
  "POST /api/v1/organization/members": op("Create a member", `Creates a local member. ${ADMIN}`),
  "GET /api/v1/organization/members/{id}": op("A member", `One member with the spend of every key it created. ${ADMIN}`),
  "PATCH /api/v1/organization/members/{id}": op("Update a member", `Changes a member's name or role; active: false deactivates it. ${ADMIN}`),
  "DELETE /api/v1/organization/members/{id}": op("Delete a member", `Deletes a member after disabling every key it created. ${ADMIN}`),
  "GET /api/v1/workspaces/{id}/members": op("Workspace members", "The members of a workspace with their roles there. Management key."),
  "POST /api/v1/workspaces/{id}/members/add": op("Add workspace members", "Adds members to a workspace with their organization role. Management key."),
  "POST /api/v1/workspaces/{id}/members/remove": op("Remove workspace members", "Removes members from a workspace (not while they hold active keys there, nor SCIM-managed memberships). Management key."),
  "GET /api/v1/guardrails/assignments/members": op("Member assignments", `Every member assignment of the workspace's guardrails. ${MGMT}`),
  "GET /api/v1/guardrails/{id}/assignments/members": op("A guardrail's members", `The members a guardrail is assigned to. ${MGMT}`),
  "POST /api/v1/guardrails/{id}/assignments/members": op("Assign a guardrail to members", `Assigns a guardrail to members (replacing what each held in the workspace). ${MGMT}`),
  "POST /api/v1/guardrails/{id}/assignments/members/remove": op("Remove a guardrail from members", `Removes a guardrail from members. ${MGMT}`),
  "GET /api/v1/observability/destinations/": op("List observability destinations", `Where generation traces are exported (OTLP/HTTP collectors and webhooks). ${MGMT}`),
  "POST /api/v1/observability/destinations/": op("Create an observability destination", `Adds an OTLP/HTTP or webhook destination with its filters and sampling. ${MGMT}`),
  "GET /api/v1/observability/destinations/{id}": op("An observability destination", `One destination (header values are masked). ${MGMT}`),
  "PATCH /api/v1/observability/destinations/{id}": op("Update an observability destination", `Changes a destination's URL, headers, filters or sampling, or disables it. ${MGMT}`),
  "DELETE /api/v1/observability/destinations/{id}": op("Delete an observability destination", `Deletes a destination; what it had pending is dropped. ${MGMT}`),
  "GET /api/v1/byok/": op("List provider keys (BYOK)", `The workspace's own provider credentials (masked). ${MGMT}`),
  "POST /api/v1/byok/": op("Add a provider key (BYOK)", `Stores a provider credential for the workspace, encrypted at rest. ${MGMT}`),
  "GET /api/v1/byok/{id}": op("A provider key (BYOK)", `One provider credential (masked). ${MGMT}`),
  "PATCH /api/v1/byok/{id}": op("Update a provider key (BYOK)", `Replaces, renames or disables a provider credential. ${MGMT}`),
  "DELETE /api/v1/byok/{id}": op("Delete a provider key (BYOK)", `Deletes a provider credential. ${MGMT}`),
  "POST /api/v1/files/": op("Upload a file", `Uploads a file (multipart) to reference from requests. ${KEYS}`),
  "GET /api/v1/files/": op("List files", `The workspace's uploaded files. ${KEYS}`),
  "GET /api/v1/files/{id}": op("A file", `One file's metadata. ${KEYS}`),
  "DELETE /api/v1/files/{id}": op("Delete a file", `Deletes a file and its content. ${KEYS}`),
  "GET /api/v1/files/{id}/content": op("A file's content", `The bytes of an uploaded file. ${KEYS}`),
  "GET /api/v1/vault/secrets": op("List workspace secrets", `The names and allowed hosts of the workspace's secrets, never their values. ${VAULT}`, "dataList"),
  "PUT /api/v1/vault/secrets/{name}": op("Set a workspace secret", `Stores a secret (encrypted at rest) and the hosts it may be sent to. ${VAULT}`, "data"),
  "DELETE /api/v1/vault/secrets/{name}": op("Delete a workspace secret", `Deletes a secret. ${VAULT}`, "none:204"),
  "GET /api/v1/vault/interns/{internId}/secrets": op("List an intern's secrets", `The intern's own secrets (names and hosts only). ${VAULT}`, "dataList"),
  "GET /api/v1/vault/interns/{internId}/secrets/effective": op("An intern's effective secrets", `The secrets an intern can use: its own over the workspace's (names only). ${VAULT}`, "dataList"),
  "PUT /api/v1/vault/interns/{internId}/secrets/{name}": op("Set an intern secret", `Stores a secret for one intern. ${VAULT}`, "data"),
  "DELETE /api/v1/vault/interns/{internId}/secrets/{name}": op("Delete an intern secret", `Deletes one of an intern's secrets. ${VAULT}`, "none:204"),
  "POST /api/v1/vault/interns/{internId}/secrets/copy": op("Copy secrets to an intern", `Copies workspace secrets into an intern's own. ${VAULT}`, "data"),
  "GET /api/v1/vault/interns/{internId}/connections": op("An intern's connections", `The keys of the connections an intern can use: stored, enabled and not turned off or hidden for it. Never credentials. ${VAULT}`, "connections"),
  "GET /api/v1/vault/interns/{internId}/connections/{key}": op("A connection's setting for an intern", `Whether one connection is turned off or hidden for one intern: {key, turned_off, hidden}. Never credentials. ${VAULT}`, "data"),
  "PUT /api/v1/vault/interns/{internId}/connections/{key}": op("Set a connection for an intern", `Turns a connection off or hides it for one intern. ${VAULT}`, "data"),
  "GET /api/v1/vault/connections": op("List connections", `The workspace's connections (Connections tab), without credentials. ${VAULT}`, "dataList"),
  "PUT /api/v1/vault/connections/{key}": op("Store a connection", `Stores a connection's credentials (encrypted at rest). ${VAULT}`, "data"),
  "GET /api/v1/vault/connections/{key}": op("A connection", `One connection, without credentials. ${VAULT}`, "data"),
  "PATCH /api/v1/vault/connections/{key}": op("Enable or disable a connection", `Sets whether a connection is enabled. ${VAULT}`, "data"),
  "DELETE /api/v1/vault/connections/{key}": op("Delete a connection", `Deletes a connection and its credentials. ${VAULT}`, "none:204"),
  "POST /api/v1/vault/connections/{key}/test-result": op("Record a connection test", `Records whether a connection's last test passed. ${VAULT}`, "data"),
  "GET /api/v1/models": op("List models", `The catalog's models with pricing and architecture; filters by query parameters. ${CATALOG}`, "models"),
  "GET /api/v1/models/user": op("Models for this workspace", `The models this workspace can route to, after its data region and provider lists. ${CATALOG}`),
  "GET /api/v1/models/count": op("Count models", `How many models the catalog lists. ${CATALOG}`, "count"),
  "GET /api/v1/endpoints/zdr": op("Zero-retention endpoints", `Endpoints that keep no prompts: every self-hosted one and remote ones marked so. ${CATALOG}`),
  "GET /api/v1/model/{author}/{slug}": op("A model", `One model of the catalog by its id: \`author/slug\`, or a bare id as a local server names it in one segment (\`/model/llama3.1:8b\`); a \`:variant\` suffix is accepted. ${CATALOG}`),
  "GET /api/v1/providers": op("List providers", `The providers the deployment is configured with. ${CATALOG}`, "providers"),
  "GET /api/v1/models/{author}/{slug}/endpoints": op("A model's endpoints", `A model with each provider endpoint serving it: pricing, context length, quantization, status. A bare model id takes one segment (\`/models/llama3.1:8b/endpoints\`). ${CATALOG}`, "data"),
  "GET /api/v1/benchmarks": op("Benchmarks", `Benchmark results: the imported snapshot and the gateway's own measurements. ${CATALOG}`),
  "GET /api/v1/endpoints/health": op("Endpoint health", `Every endpoint (model × provider) with its routing health, measured latency and throughput, and price. ${CATALOG}`),
  "GET /api/v1/classifications/task": op("Task classification", `Shares of this workspace's traffic per task, from the auto-router's classifier. ${CATALOG}`),
  "GET /api/v1/datasets/rankings-daily": op("Daily model rankings", `Tokens per model and period over this workspace's traffic: the top 50 and one \`other\` row per period. ${CATALOG}`),
  "GET /api/v1/datasets/app-rankings": op("App rankings", `Apps (by HTTP-Referer or User-Agent) ranked by tokens over this workspace's traffic. ${CATALOG}`),
  "GET /api/v1/datasets/session-cost": op("Session cost", `Median spend per session by app, model and turn range over this workspace's last 7 days. ${CATALOG}`),
  "POST /api/v1/chat/completions": op("Chat completion", `OpenAI-style chat completions, streamed as server-sent events with stream: true. ${INFER}`, "completion"),
  "POST /api/v1/responses": op("Create a response", `OpenAI Responses-style generation; stateless: the whole conversation goes in input. ${INFER}`, "completion"),
  "POST /api/v1/messages": op("Create a message", `Anthropic Messages-style generation (also served at /api/v1/v1/messages for SDKs that add /v1). ${INFER}`, "completion"),
  "POST /api/v1/messages/count_tokens": op("Count message tokens", `Counts the input tokens of a Messages-style request (also at /api/v1/v1/messages/count_tokens). ${INFER}`, "tokens"),
  "GET /api/v1/generation": op("A generation", `One generation record by id: model, provider, tokens, cost, latency and attempts. ${KEYS}`),
  "POST /api/v1/embeddings": op("Create embeddings", `OpenAI-style embeddings of text input. ${INFER}`, "object"),
  "POST /api/v1/rerank": op("Rerank documents", `Scores documents against a query (Cohere-style). ${INFER}`, "object"),
  "POST /api/v1/audio/transcriptions": op("Transcribe audio", `Speech to text from an uploaded audio file (multipart). ${INFER}`, "object"),
  "POST /api/v1/audio/speech": op("Synthesize speech", `Text to speech; answers the audio bytes. ${INFER}`, "audio"),
  "POST /api/v1/images": op("Generate images", `Image generation from a prompt. ${INFER}`, "object"),
  "POST /api/v1/images/generations": op("Generate images (OpenAI path)", `Image generation at OpenAI's path. ${INFER}`, "object"),
  "GET /api/v1/activity": op("Activity", `Daily usage per model and provider over the last 30 days. ${MGMT}`),
  "GET /api/v1/analytics/meta": op("Analytics dimensions", `The metrics, dimensions and filters an analytics query may use. ${MGMT}`),
  "POST /api/v1/analytics/query": op("Analytics query", `Aggregates the workspace's generations by dimensions over a period. ${MGMT}`),
  "GET /api/v1/credits": op("Credits", `Total credits and usage of the workspace. ${MGMT}`),
  "GET /api/v1/generations": op("List generations", `The workspace's generation records, newest first, with filters and paging. ${MGMT}`),
  "GET /api/v1/generation/content": op("A generation's content", `The stored input and output of a generation, when the workspace logs them. ${KEYS}`),
  "POST /api/v1/generation/feedback": op("Generation feedback", `Records feedback (a category and a comment) on a generation. ${MGMT}`),
  "POST /api/v1/videos": op("Generate a video", `Starts a video generation job; poll it with GET /videos/{id}. ${INFER}`, "object:202"),
  "GET /api/v1/videos/{id}": op("A video job", `The status of a video generation job, and its content URL when done. ${INFER}`, "object"),
  "GET /api/v1/videos/{id}/content": op("A video's content", `The bytes of a finished video. ${INFER}`, "video"),
  "GET /api/v1/scim/groups": op("SCIM groups", `Groups pushed by the identity provider. ${MGMT}`),
  "GET /api/v1/scim/group-mappings": op("List group mappings", `Which SCIM group grants which workspace membership and role. ${MGMT}`),
  "POST /api/v1/scim/group-mappings": op("Create a group mapping", `Maps a SCIM group to a workspace and role. ${MGMT}`),
  "GET /api/v1/scim/group-mappings/{id}": op("A group mapping", `One group mapping. ${MGMT}`),
  "PATCH /api/v1/scim/group-mappings/{id}": op("Update a group mapping", `Changes a mapping's workspace or role. ${MGMT}`),
  "DELETE /api/v1/scim/group-mappings/{id}": op("Delete a group mapping", `Deletes a group mapping. ${MGMT}`),
  "GET /api/v1/scim/tokens": op("List SCIM tokens", `The tokens the identity provider uses (never their secrets). Deployment admin.`),
  "POST /api/v1/scim/tokens": op("Create a SCIM token", `Creates a token for the identity provider; its secret is shown once. Deployment admin.`),
  "DELETE /api/v1/scim/tokens/{id}": op("Revoke a SCIM token", `Revokes a SCIM token. Deployment admin.`),
  "POST /api/v1/auth/keys": op("Exchange an OAuth code for a key", "Trades an authorization code and its PKCE verifier for an API key. No key: the code is the credential."),
  "POST /api/v1/auth/keys/code": op("Create an OAuth code", "Creates an authorization code for a callback, for a management key acting for an application."),
  "GET /api/v1/audit-log/": op("List audit log entries", "Audit log entries, newest first. Deployment admin."),
  "GET /api/v1/audit-log/export": op("Export the audit log", "Every audit log entry in order as NDJSON (one entry per line, with its hashes). Deployment admin.", "ndjson"),
  "GET /api/v1/audit-log/verify": op("Verify the audit log", "Recomputes the audit log's chain of hashes and names the first broken link. Deployment admin."),
};

/** Route paths the document names by their parts: a wildcard route stands for one documented template. */
export const PATH_TEMPLATES: Record<string, { path: string; parameters: Array<{ name: string; description: string }> }> = {
  "/api/v1/model/*": {
    path: "/api/v1/model/{author}/{slug}",
    parameters: [
      { name: "author", description: "The model id's author part (before the slash); a bare id (`llama3.1:8b`) is the whole id in this one segment, with no slug" },
      { name: "slug", description: "The model id's name part; may hold further slashes, percent-encoded" },
    ],
  },
  "/api/v1/models/*": {
    path: "/api/v1/models/{author}/{slug}/endpoints",
    parameters: [
      { name: "author", description: "The model id's author part (before the slash); a bare id (`llama3.1:8b`) is the whole id in this one segment, with no slug" },
      { name: "slug", description: "The model id's name part; may hold further slashes, percent-encoded" },
    ],
  },
};

/** Aliases served for SDKs that append their own `/v1`: documented on the operation they repeat, not twice. */
export const ALIASES = new Set(["/api/v1/v1/messages", "/api/v1/v1/messages/count_tokens"]);

const field = (type: string, description: string) => ({ type, description });

/** Request bodies of routes that read their body by hand (multipart, forms), which the generator cannot see. */
export const REQUEST_BODIES: Record<string, Record<string, unknown>> = {
  "POST /session/sign-out": {
    required: false,
    content: {
      "application/x-www-form-urlencoded": { schema: { type: "object", properties: { csrf_token: field("string", "The session's CSRF token (or send it in the x-csrf-token header)") } } },
    },
  },
  "POST /api/v1/audio/transcriptions": {
    required: true,
    content: {
      "multipart/form-data": {
        schema: {
          type: "object",
          required: ["file", "model"],
          properties: { file: { type: "string", format: "binary", description: "The audio to transcribe" }, model: field("string", "Model id"), language: field("string", "ISO-639-1 language of the audio"), prompt: field("string", "Text to guide the transcription"), response_format: field("string", "json, text, srt, verbose_json or vtt"), temperature: field("number", "Sampling temperature") },
        },
      },
      "application/json": { schema: { type: "object", required: ["model"], additionalProperties: true, properties: { model: field("string", "Model id"), input_audio: { type: "object", description: "Base64 audio with its format" } } } },
    },
  },
  "POST /api/v1/videos": {
    required: true,
    content: {
      "application/json": { schema: { type: "object", required: ["model", "prompt"], additionalProperties: true, properties: { model: field("string", "Model id"), prompt: field("string", "What the video shows"), duration: field("integer", "Seconds"), size: field("string", "Width x height, e.g. 1280x720") } } },
      "multipart/form-data": {
        schema: { type: "object", required: ["model", "prompt"], properties: { model: field("string", "Model id"), prompt: field("string", "What the video shows"), seconds: field("string", "Whole seconds"), size: field("string", "Width x height"), input_reference: { type: "string", format: "binary", description: "An image used as the first frame" } } },
      },
    },
  },
};
