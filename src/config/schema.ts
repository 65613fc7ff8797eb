import { type Static, Type as T } from "@sinclair/typebox";
import { described } from "./describe.ts";
import { FormatRegistry } from "@sinclair/typebox";
import { isIpOrCidr } from "../core/trusted-proxies.ts";
import { ModelConfig, ProviderConfig, UpstreamConfig } from "./catalog-schema.ts";

FormatRegistry.Set("ip-or-cidr", isIpOrCidr);

/** Catalog MCP servers a connection key may name (besides github, slack, google and `mcp:<host>`). */
export const DEFAULT_MCP_CATALOG = [
  "airtable",
  "asana",
  "atlassian",
  "box",
  "canva",
  "cloudflare",
  "confluence",
  "dropbox",
  "figma",
  "gitlab",
  "hubspot",
  "intercom",
  "jira",
  "linear",
  "monday",
  "notion",
  "paypal",
  "sentry",
  "square",
  "stripe",
  "supabase",
  "vercel",
  "zapier",
];

const Hostname = T.String({ minLength: 1, maxLength: 253, pattern: "^[A-Za-z0-9.-]+$" });

export const ServerConfig = T.Object(
  {
    host: described("Listen address (ROUNDHOUSE_HOST; `serve --host`). `0.0.0.0` or `::` listens on every interface.", T.String({ minLength: 1, default: "127.0.0.1" })),
    port: described("Listen port (ROUNDHOUSE_PORT; `serve --port`); 0 takes any free port.", T.Integer({ minimum: 0, maximum: 65535, default: 8080 })),
    max_body_bytes: described("Largest accepted request body in bytes; larger ones get 413.", T.Integer({ minimum: 1024, maximum: 1_073_741_824, default: 10 * 1024 * 1024 })),
    max_upload_bytes: described("Largest multipart upload (audio to transcribe, video references) in bytes; larger ones get 413 as soon as the limit is passed. Uploads are spooled to `<data_dir>/uploads`, never held in memory.", T.Integer({ minimum: 1024, maximum: 8_589_934_592, default: 100 * 1024 * 1024 })),
    regional_hostnames: described("Requests whose Host header names one of these are refused with 421.", T.Array(Hostname, { default: [] })),
    trusted_proxies: described("TCP peers (IPs or CIDR ranges) whose X-Forwarded-Host names the host asked for; no one else's is read.", T.Array(T.String({ format: "ip-or-cidr" }), { default: [] })),
    shutdown_grace_ms: described("On SIGTERM or SIGINT, how long in-flight requests and streams may run before they are aborted.", T.Integer({ minimum: 0, maximum: 600_000, default: 10_000 })),
  },
  { additionalProperties: false, default: {} },
);

export const LogConfig = T.Object(
  {
    level: T.Union([T.Literal("debug"), T.Literal("info"), T.Literal("warn"), T.Literal("error"), T.Literal("silent")], {
      default: "info",
      description: "Least severe log line written (ROUNDHOUSE_LOG_LEVEL); `silent` writes none.",
    }),
  },
  { additionalProperties: false, default: {} },
);

export const MetricsConfig = T.Object(
  {
    enabled: described("Serve Prometheus metrics at /metrics on the main listener.", T.Boolean({ default: true })),
    require_key: described("Only a management key may read /metrics.", T.Boolean({ default: false })),
  },
  { additionalProperties: false, default: {} },
);

export const VaultConfig = T.Object(
  {
    mcp_catalog: described("Names a connection key may take as a catalog MCP server.", T.Array(T.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,62}$" }), { default: DEFAULT_MCP_CATALOG })),
  },
  { additionalProperties: false, default: {} },
);

/** A connection key as a feature names it; its form is checked against `vault.mcp_catalog` at load. */
const ConnectionKey = T.String({ minLength: 1, maxLength: 260 });

/**
 * A feature: a named capability an intern can be given, with the connections it needs. Adding it to
 * an intern checks `requires` against the intern's usable connections; `optional` ones are shown.
 */
export const FeatureConfig = T.Object(
  {
    id: described("The feature's id, as an intern's feature list names it (lowercase letters, digits, `.`, `_`, `-`).", T.String({ pattern: "^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$" })),
    title: described("The feature's name for people.", T.String({ minLength: 1, maxLength: 200 })),
    description: described("What the feature lets an intern do.", T.String({ maxLength: 2000, default: "" })),
    requires: described("Connection keys the intern must have usable to be given the feature (e.g. `github`, `mcp:<host>`).", T.Array(ConnectionKey, { maxItems: 64, default: [] })),
    optional: described("Connection keys the feature can use when present; shown, not required.", T.Array(ConnectionKey, { maxItems: 64, default: [] })),
  },
  { additionalProperties: false },
);

export type FeatureConfig = Static<typeof FeatureConfig>;

export const InternsConfig = T.Object(
  {
    features: described("Features declared in the config file.", T.Array(FeatureConfig, { default: [] })),
    features_dir: described("A directory of one feature per file (.yaml, .yml or .json), read at start; null for none.", T.Union([T.String({ minLength: 1 }), T.Null()], { default: null })),
  },
  { additionalProperties: false, default: {} },
);

export const StorageConfig = T.Object(
  {
    busy_timeout_ms: described("How long a write waits for the database lock before giving up (409 on preset writes).", T.Integer({ minimum: 0, maximum: 600_000, default: 5000 })),
    url: described("Team mode: the PostgreSQL database N replicas share (`postgres://` or `postgresql://`; also ROUNDHOUSE_DATABASE_URL). Unset: the embedded SQLite file under data_dir.", T.Optional(T.String({ minLength: 1 }))),
    max_pending_records: described("Most generation records held in memory (and in the journal) while the database cannot take them (PostgreSQL unreachable or restarting); past it new records are dropped and counted in `roundhouse_generations_dropped_total`.", T.Integer({ minimum: 1000, maximum: 10_000_000, default: 50_000 })),
  },
  { additionalProperties: false, default: {} },
);

export const SecurityConfig = T.Object(
  {
    allow_private_urls: described("Let the gateway fetch request-supplied URLs on loopback, private and link-local addresses.", T.Boolean({ default: false })),
  },
  { additionalProperties: false, default: {} },
);

export const LimitsConfig = T.Object(
  {
    requests_per_minute: described("Default per-key limits over a sliding minute; a key's own setting wins; null is no limit.", T.Union([T.Integer({ minimum: 1 }), T.Null()], { default: null })),
    tokens_per_minute: described("Default tokens per key over a sliding minute; a key's own setting wins; null is no limit.", T.Union([T.Integer({ minimum: 1 }), T.Null()], { default: null })),
  },
  { additionalProperties: false, default: {} },
);

/**
 * Routing state keyed by what clients choose (session ids, conversation keys): bounded in entries (the
 * least recently written one goes first) and in time.
 */
export const RoutingConfig = T.Object(
  {
    sticky_sessions: T.Object(
      {
        max_entries: described("Most conversations remembered; the least recently written one goes first.", T.Integer({ minimum: 1, maximum: 10_000_000, default: 100_000 })),
        ttl_ms: described("How long a conversation keeps its endpoint after its last success, in milliseconds.", T.Integer({ minimum: 1000, maximum: 7 * 86_400_000, default: 10 * 60_000 })),
      },
      { additionalProperties: false, default: {}, description: "Sticky routing: conversations remembered, and how long one keeps its endpoint after its last success." },
    ),
    router_memory: T.Object(
      {
        max_entries: described("Most remembered choices; the least recently written one goes first.", T.Integer({ minimum: 1, maximum: 10_000_000, default: 100_000 })),
        max_ttl_ms: described("Longest time a plugin may remember a choice, in milliseconds; a plugin's longer TTL is cut to this.", T.Integer({ minimum: 1000, maximum: 30 * 86_400_000, default: 86_400_000 })),
      },
      { additionalProperties: false, default: {}, description: "Choices plugins remember per conversation (router stickiness); a plugin's longer TTL is cut to max_ttl_ms." },
    ),
  },
  { additionalProperties: false, default: {} },
);

/** Who operates this deployment: named in the attribution line of the public datasets (`/datasets/*`). */
export const DeploymentConfig = T.Object(
  {
    name: described("The operator's name in the attribution line of the public datasets.", T.String({ minLength: 1, maxLength: 200, default: "Roundhouse" })),
  },
  { additionalProperties: false, default: {} },
);

export const PluginsConfig = T.Object(
  {
    directories: described("Directories of operator plugins (modules, or folders with an index module), scanned at start.", T.Array(T.String({ minLength: 1 }), { default: [] })),
    required: described("A broken plugin stops the start instead of being skipped.", T.Boolean({ default: false })),
  },
  { additionalProperties: false, default: {} },
);

/** A mapping from an identity-provider group to a role in one workspace (by id or slug). */
export const SsoWorkspaceGroup = T.Object(
  {
    group: described("The group name as the identity provider's groups claim lists it.", T.String({ minLength: 1, maxLength: 256 })),
    workspace: described("The workspace, by id or slug.", T.String({ minLength: 1, maxLength: 256 })),
    role: described("The role members of the group get in the workspace: `admin` or `member`.", T.Union([T.Literal("admin"), T.Literal("member")], { default: "member" })),
  },
  { additionalProperties: false },
);

/**
 * Single sign-on with OpenID Connect (authorization code + PKCE) against the operator's identity
 * provider. Absent: SSO is off and the sign-in page offers only the management-key form.
 */
export const SsoConfig = T.Object(
  {
    issuer: described("The provider's issuer URL; its discovery document is read from `<issuer>/.well-known/openid-configuration`.", T.String({ minLength: 1, maxLength: 2048, pattern: "^https?://" })),
    client_id: described("The client id registered at the identity provider.", T.String({ minLength: 1, maxLength: 512 })),
    client_secret: described("The client secret (or ROUNDHOUSE_SSO_CLIENT_SECRET); absent for a public client (PKCE only).", T.Optional(T.String({ minLength: 1 }))),
    redirect_url: described("Where the provider sends the browser back; default `<the URL the browser used>/session/oidc/callback`.", T.Optional(T.String({ minLength: 1, maxLength: 2048, pattern: "^https?://" }))),
    scopes: described("Scopes asked for at sign-in; must include `openid`.", T.Array(T.String({ minLength: 1, maxLength: 128, pattern: "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$" }), { minItems: 1, default: ["openid", "email", "profile"] })),
    groups_claim: described("The ID-token (or userinfo) claim listing the member's groups.", T.String({ minLength: 1, maxLength: 256, default: "groups" })),
    admin_groups: described("Members of these groups are organization admins (and others are not, owners aside).", T.Array(T.String({ minLength: 1, maxLength: 256 }), { default: [] })),
    workspace_groups: described("Workspace roles granted by group at each sign-in (memberships of source `sso`).", T.Array(SsoWorkspaceGroup, { default: [] })),
    session_ttl: described("How long a signed-in session lasts, in seconds (default 12 hours).", T.Integer({ minimum: 60, maximum: 30 * 86_400, default: 43_200 })),
    clock_tolerance: described("Tolerated clock difference with the provider when checking ID-token times, in seconds.", T.Integer({ minimum: 0, maximum: 600, default: 30 })),
  },
  { additionalProperties: false },
);

export type SsoConfig = Static<typeof SsoConfig>;

export const Config = T.Object(
  {
    server: described("The HTTP listener: address, port, body limits, proxies and shutdown.", ServerConfig),
    deployment: described("Who operates this deployment: named in the attribution line of the public datasets (`/datasets/*`).", DeploymentConfig),
    data_dir: described("Directory holding the database file (and, unless configured otherwise, the master key file).", T.String({ minLength: 1, default: "./data" })),
    master_key_file: described("Where the master key lives when ROUNDHOUSE_MASTER_KEY is not set; default `<data_dir>/master.key`.", T.Optional(T.String({ minLength: 1 }))),
    storage: described("Where state is kept: the embedded SQLite file under data_dir, or PostgreSQL in team mode.", StorageConfig),
    log: described("Logging: JSON lines on stderr.", LogConfig),
    metrics: described("Prometheus metrics at /metrics.", MetricsConfig),
    vault: described("The workspace vault of secrets and connections.", VaultConfig),
    interns: described("Interns: features they can be given and the connections each needs.", InternsConfig),
    upstream: described("Timeouts, keep-alives and limits of calls to upstream providers; each provider may override the timeouts.", UpstreamConfig),
    plugins: described("Operator plugins: where they are found and whether a broken one stops the start.", PluginsConfig),
    tools: described("Settings of the server tools and plugins, by name (`web_search: {engine: searxng, searxng_url: ...}`, `moderation: {model: ...}`); each plugin validates its own section at start.", T.Record(T.String({ minLength: 1 }), T.Record(T.String(), T.Unknown()), { default: {} })),
    security: described("Which addresses request-supplied URLs may reach.", SecurityConfig),
    limits: described("Default per-key rate limits.", LimitsConfig),
    routing: described("Routing state keyed by what clients choose (session ids, conversation keys): bounded in entries (the least recently written one goes first) and in time.", RoutingConfig),
    providers: described("Upstream providers by slug. Without any, the embedded simulated provider and model are served.", T.Record(T.String({ pattern: "^[a-z0-9][a-z0-9._-]*(/[a-z0-9._-]+)?$" }), ProviderConfig, { default: {}, additionalProperties: false })),
    models: described("The models of the catalog, each with its endpoints (providers that serve it). Without providers and models, the embedded simulated catalog is served.", T.Array(ModelConfig, { default: [] })),
    benchmarks_file: described("A JSON file of benchmark results served by GET /benchmarks (checked at start; see config/benchmarks.ts).", T.Optional(T.String({ minLength: 1 }))),
    sso: described("Single sign-on (OpenID Connect); absent = off.", T.Optional(SsoConfig)),
    watch_config: described(
      "Reload providers, models and default limits when the config file changes, as SIGHUP does (a bad file is rejected and the running config stays). Off by default.",
      T.Boolean({ default: false }),
    ),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof Config>;
