import { type Static, Type as T } from "@sinclair/typebox";
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
    host: T.String({ minLength: 1, default: "127.0.0.1" }),
    port: T.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    /** Largest accepted request body in bytes; larger ones get 413. */
    max_body_bytes: T.Integer({ minimum: 1024, maximum: 1_073_741_824, default: 10 * 1024 * 1024 }),
    /**
     * Largest multipart upload (audio to transcribe, video references) in bytes; larger ones get 413 as
     * soon as the limit is passed. Uploads are spooled to `<data_dir>/uploads`, never held in memory.
     */
    max_upload_bytes: T.Integer({ minimum: 1024, maximum: 8_589_934_592, default: 100 * 1024 * 1024 }),
    /** Requests whose Host header names one of these are refused with 421. */
    regional_hostnames: T.Array(Hostname, { default: [] }),
    /** TCP peers (IPs or CIDR ranges) whose X-Forwarded-Host names the host asked for; no one else's is read. */
    trusted_proxies: T.Array(T.String({ format: "ip-or-cidr" }), { default: [] }),
    /** On SIGTERM or SIGINT, how long in-flight requests and streams may run before they are aborted. */
    shutdown_grace_ms: T.Integer({ minimum: 0, maximum: 600_000, default: 10_000 }),
  },
  { additionalProperties: false, default: {} },
);

export const LogConfig = T.Object(
  {
    level: T.Union([T.Literal("debug"), T.Literal("info"), T.Literal("warn"), T.Literal("error"), T.Literal("silent")], {
      default: "info",
    }),
  },
  { additionalProperties: false, default: {} },
);

export const MetricsConfig = T.Object(
  {
    /** Serve Prometheus metrics at /metrics on the main listener. */
    enabled: T.Boolean({ default: true }),
    /** Only a management key may read /metrics. */
    require_key: T.Boolean({ default: false }),
  },
  { additionalProperties: false, default: {} },
);

export const VaultConfig = T.Object(
  {
    /** Names a connection key may take as a catalog MCP server. */
    mcp_catalog: T.Array(T.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,62}$" }), { default: DEFAULT_MCP_CATALOG }),
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
    id: T.String({ pattern: "^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$" }),
    title: T.String({ minLength: 1, maxLength: 200 }),
    description: T.String({ maxLength: 2000, default: "" }),
    requires: T.Array(ConnectionKey, { maxItems: 64, default: [] }),
    optional: T.Array(ConnectionKey, { maxItems: 64, default: [] }),
  },
  { additionalProperties: false },
);

export type FeatureConfig = Static<typeof FeatureConfig>;

export const InternsConfig = T.Object(
  {
    /** Features declared in the config file. */
    features: T.Array(FeatureConfig, { default: [] }),
    /** A directory of one feature per file (.yaml, .yml or .json), read at start; null for none. */
    features_dir: T.Union([T.String({ minLength: 1 }), T.Null()], { default: null }),
  },
  { additionalProperties: false, default: {} },
);

export const StorageConfig = T.Object(
  {
    /** How long a write waits for the database lock before giving up (409 on preset writes). */
    busy_timeout_ms: T.Integer({ minimum: 0, maximum: 600_000, default: 5000 }),
    /**
     * Team mode: the PostgreSQL database N replicas share (`postgres://` or `postgresql://`; also
     * ROUNDHOUSE_DATABASE_URL). Unset: the embedded SQLite file under data_dir.
     */
    url: T.Optional(T.String({ minLength: 1 })),
    /**
     * Most generation records held in memory (and in the journal) while the database cannot take them
     * (PostgreSQL unreachable or restarting); past it new records are dropped and counted in
     * `roundhouse_generations_dropped_total`.
     */
    max_pending_records: T.Integer({ minimum: 1000, maximum: 10_000_000, default: 50_000 }),
  },
  { additionalProperties: false, default: {} },
);

export const SecurityConfig = T.Object(
  {
    /** Let the gateway fetch request-supplied URLs on loopback, private and link-local addresses. */
    allow_private_urls: T.Boolean({ default: false }),
  },
  { additionalProperties: false, default: {} },
);

export const LimitsConfig = T.Object(
  {
    /** Default per-key limits over a sliding minute; a key's own setting wins; null is no limit. */
    requests_per_minute: T.Union([T.Integer({ minimum: 1 }), T.Null()], { default: null }),
    tokens_per_minute: T.Union([T.Integer({ minimum: 1 }), T.Null()], { default: null }),
  },
  { additionalProperties: false, default: {} },
);

/**
 * Routing state keyed by what clients choose (session ids, conversation keys): bounded in entries (the
 * least recently written one goes first) and in time.
 */
export const RoutingConfig = T.Object(
  {
    /** Sticky routing: conversations remembered, and how long one keeps its endpoint after its last success. */
    sticky_sessions: T.Object(
      {
        max_entries: T.Integer({ minimum: 1, maximum: 10_000_000, default: 100_000 }),
        ttl_ms: T.Integer({ minimum: 1000, maximum: 7 * 86_400_000, default: 10 * 60_000 }),
      },
      { additionalProperties: false, default: {} },
    ),
    /** Choices plugins remember per conversation (router stickiness); a plugin's longer TTL is cut to max_ttl_ms. */
    router_memory: T.Object(
      {
        max_entries: T.Integer({ minimum: 1, maximum: 10_000_000, default: 100_000 }),
        max_ttl_ms: T.Integer({ minimum: 1000, maximum: 30 * 86_400_000, default: 86_400_000 }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false, default: {} },
);

/** Who operates this deployment: named in the attribution line of the public datasets (`/datasets/*`). */
export const DeploymentConfig = T.Object(
  {
    name: T.String({ minLength: 1, maxLength: 200, default: "Roundhouse" }),
  },
  { additionalProperties: false, default: {} },
);

export const PluginsConfig = T.Object(
  {
    /** Directories of operator plugins (modules, or folders with an index module), scanned at start. */
    directories: T.Array(T.String({ minLength: 1 }), { default: [] }),
    /** A broken plugin stops the start instead of being skipped. */
    required: T.Boolean({ default: false }),
  },
  { additionalProperties: false, default: {} },
);

/** A mapping from an identity-provider group to a role in one workspace (by id or slug). */
export const SsoWorkspaceGroup = T.Object(
  {
    group: T.String({ minLength: 1, maxLength: 256 }),
    workspace: T.String({ minLength: 1, maxLength: 256 }),
    role: T.Union([T.Literal("admin"), T.Literal("member")], { default: "member" }),
  },
  { additionalProperties: false },
);

/**
 * Single sign-on with OpenID Connect (authorization code + PKCE) against the operator's identity
 * provider. Absent: SSO is off and the sign-in page offers only the management-key form.
 */
export const SsoConfig = T.Object(
  {
    /** The provider's issuer URL; its discovery document is read from `<issuer>/.well-known/openid-configuration`. */
    issuer: T.String({ minLength: 1, maxLength: 2048, pattern: "^https?://" }),
    client_id: T.String({ minLength: 1, maxLength: 512 }),
    /** The client secret (or ROUNDHOUSE_SSO_CLIENT_SECRET); absent for a public client (PKCE only). */
    client_secret: T.Optional(T.String({ minLength: 1 })),
    /** Where the provider sends the browser back; default `<the URL the browser used>/session/oidc/callback`. */
    redirect_url: T.Optional(T.String({ minLength: 1, maxLength: 2048, pattern: "^https?://" })),
    scopes: T.Array(T.String({ minLength: 1, maxLength: 128, pattern: "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$" }), { minItems: 1, default: ["openid", "email", "profile"] }),
    /** The ID-token (or userinfo) claim listing the member's groups. */
    groups_claim: T.String({ minLength: 1, maxLength: 256, default: "groups" }),
    /** Members of these groups are organization admins (and others are not, owners aside). */
    admin_groups: T.Array(T.String({ minLength: 1, maxLength: 256 }), { default: [] }),
    /** Workspace roles granted by group at each sign-in (memberships of source `sso`). */
    workspace_groups: T.Array(SsoWorkspaceGroup, { default: [] }),
    /** How long a signed-in session lasts, in seconds (default 12 hours). */
    session_ttl: T.Integer({ minimum: 60, maximum: 30 * 86_400, default: 43_200 }),
    /** Tolerated clock difference with the provider when checking ID-token times, in seconds. */
    clock_tolerance: T.Integer({ minimum: 0, maximum: 600, default: 30 }),
  },
  { additionalProperties: false },
);

export type SsoConfig = Static<typeof SsoConfig>;

export const Config = T.Object(
  {
    server: ServerConfig,
    deployment: DeploymentConfig,
    /** Directory holding the database file (and, unless configured otherwise, the master key file). */
    data_dir: T.String({ minLength: 1, default: "./data" }),
    /** Where the master key lives when ROUNDHOUSE_MASTER_KEY is not set; default `<data_dir>/master.key`. */
    master_key_file: T.Optional(T.String({ minLength: 1 })),
    storage: StorageConfig,
    log: LogConfig,
    metrics: MetricsConfig,
    vault: VaultConfig,
    interns: InternsConfig,
    upstream: UpstreamConfig,
    plugins: PluginsConfig,
    /**
     * Settings of the server tools and plugins, by name (`web_search: {engine: searxng, searxng_url: ...}`,
     * `moderation: {model: ...}`); each plugin validates its own section at start.
     */
    tools: T.Record(T.String({ minLength: 1 }), T.Record(T.String(), T.Unknown()), { default: {} }),
    security: SecurityConfig,
    limits: LimitsConfig,
    routing: RoutingConfig,
    /** Upstream providers by slug. Without any, the embedded simulated provider and model are served. */
    providers: T.Record(T.String({ pattern: "^[a-z0-9][a-z0-9._-]*(/[a-z0-9._-]+)?$" }), ProviderConfig, { default: {}, additionalProperties: false }),
    models: T.Array(ModelConfig, { default: [] }),
    /** A JSON file of benchmark results served by GET /benchmarks (checked at start; see config/benchmarks.ts). */
    benchmarks_file: T.Optional(T.String({ minLength: 1 })),
    /** Single sign-on (OpenID Connect); absent = off. */
    sso: T.Optional(SsoConfig),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof Config>;
