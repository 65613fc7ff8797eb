import { stat } from "node:fs/promises";
import { Value } from "@sinclair/typebox/value";
import { parse as parseYaml, YAMLParseError } from "yaml";
import { featureProblems, readFeatureFiles } from "./features.ts";
import { schemaProblems } from "./problems.ts";
import { referenceProblems } from "./references.ts";
import { Config } from "./schema.ts";

export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(
    message: string,
    /** Each problem on its own (`config check --json` lists them); the message alone when not given. */
    readonly problems: readonly string[] = [message],
  ) {
    super(message);
  }
}

type Env = Record<string, string | undefined>;

export interface LoadConfigOptions {
  /** Path given with --config; falls back to ROUNDHOUSE_CONFIG. */
  path?: string | undefined;
  env?: Env;
  /** Config text to use instead of reading a file (tests). */
  text?: string;
}

/**
 * Environment variables that override a key of the file. Each maps to a path and a parser; a value that
 * does not parse is reported with the variable's name.
 */
export const ENV_OVERRIDES: Array<{ name: string; path: string[]; parse: (raw: string) => unknown }> = [
  { name: "ROUNDHOUSE_HOST", path: ["server", "host"], parse: (raw) => raw },
  { name: "ROUNDHOUSE_PORT", path: ["server", "port"], parse: parseInteger },
  { name: "ROUNDHOUSE_MAX_BODY_BYTES", path: ["server", "max_body_bytes"], parse: parseInteger },
  { name: "ROUNDHOUSE_MAX_UPLOAD_BYTES", path: ["server", "max_upload_bytes"], parse: parseInteger },
  { name: "ROUNDHOUSE_REGIONAL_HOSTNAMES", path: ["server", "regional_hostnames"], parse: parseList },
  { name: "ROUNDHOUSE_DATA_DIR", path: ["data_dir"], parse: (raw) => raw },
  { name: "ROUNDHOUSE_MASTER_KEY_FILE", path: ["master_key_file"], parse: (raw) => raw },
  { name: "ROUNDHOUSE_DATABASE_URL", path: ["storage", "url"], parse: (raw) => raw },
  { name: "ROUNDHOUSE_LOG_LEVEL", path: ["log", "level"], parse: (raw) => raw },
  { name: "ROUNDHOUSE_UPSTREAM_HTTP_CLIENT", path: ["upstream", "http_client"], parse: (raw) => raw },
];

function parseInteger(raw: string): unknown {
  return /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
}

function parseList(raw: string): string[] {
  return raw
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** Replaces `${NAME}` in every string of the document; `$${` escapes a literal `${`. */
export function interpolateEnv(value: unknown, env: Env, path = ""): unknown {
  if (typeof value === "string") {
    return value.replace(/\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (match, name: string) => {
      if (match.startsWith("$$")) return match.slice(1);
      const found = env[name];
      if (found === undefined) {
        throw new ConfigError(`${path || "(root)"}: environment variable ${name} is not set`);
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolateEnv(item, env, `${path}[${index}]`));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateEnv(item, env, path ? `${path}.${key}` : key)]),
    );
  }
  return value;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== "object" || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** The problems of a parsed document (with defaults applied), every one of them, one line each. */
function documentProblems(candidate: unknown): string[] {
  const problems = schemaProblems(Config, candidate);
  if (problems.length > 0) return problems;
  const config = candidate as Config;
  const url = config.storage.url;
  // The URL holds a password: the message never quotes it.
  if (url !== undefined && !/^postgres(ql)?:\/\//i.test(url)) problems.push("storage.url: expected a postgres:// or postgresql:// URL (team mode's PostgreSQL database)");
  const scopes = config.sso?.scopes;
  if (scopes !== undefined && !scopes.includes("openid")) problems.push('sso.scopes: must include "openid"');
  problems.push(...referenceProblems(config));
  return problems;
}

/** Validates a parsed document; every problem is reported by key path, expectation and value. */
export function validateConfig(document: unknown, source: string): Config {
  const candidate = Value.Default(Config, structuredClone(document ?? {})) as unknown;
  const problems = documentProblems(candidate);
  if (problems.length > 0) throw new ConfigError(`invalid configuration (${source}):\n  ${problems.join("\n  ")}`, problems);
  return candidate as Config;
}

/** Why a file cannot be read, naming who the gateway runs as (the usual fix is the file's owner or mode). */
function permissionDenied(): string {
  return `permission denied (the gateway runs as ${typeof process.getuid === "function" ? `uid ${process.getuid()}` : "its user"})`;
}

/** The text of the config file at `path`; a path that is missing, a directory or unreadable is a sentence naming it. */
async function readConfigFile(path: string): Promise<string> {
  const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") throw new ConfigError(`config file not found: ${path}`);
    throw new ConfigError(`config file ${path} cannot be read: ${error.code === "EACCES" ? permissionDenied() : error.message}`);
  });
  if (found.isDirectory()) throw new ConfigError(`config file ${path} is a directory, not a file`);
  try {
    return await Bun.file(path).text();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`config file ${path} cannot be read: ${code === "EACCES" || code === "EPERM" ? permissionDenied() : (error as Error).message}`);
  }
}

export async function loadConfig(options: LoadConfigOptions = {}): Promise<Config> {
  const env = options.env ?? process.env;
  const path = options.path ?? env.ROUNDHOUSE_CONFIG;
  let text = options.text;
  let source = text === undefined ? "embedded defaults" : "inline text";
  if (text === undefined && path) {
    text = await readConfigFile(path);
    source = path;
  }
  let document: unknown = {};
  if (text !== undefined && text.trim().length > 0) {
    try {
      document = parseYaml(text);
    } catch (error) {
      const detail = error instanceof YAMLParseError ? error.message : String(error);
      throw new ConfigError(`config file is not valid YAML (${source}): ${detail}`);
    }
    if (document === null || typeof document !== "object" || Array.isArray(document)) {
      throw new ConfigError(`config file must hold a mapping at the top level (${source})`);
    }
  }
  document = interpolateEnv(document, env);
  const merged = structuredClone(document) as Record<string, unknown>;
  for (const override of ENV_OVERRIDES) {
    const raw = env[override.name];
    if (raw === undefined || raw === "") continue;
    setPath(merged, override.path, override.parse(raw));
  }
  const sso = merged.sso;
  const ssoSecret = env.ROUNDHOUSE_SSO_CLIENT_SECRET;
  if (ssoSecret && sso !== null && typeof sso === "object" && !Array.isArray(sso)) (sso as Record<string, unknown>).client_secret ??= ssoSecret;
  let config: Config;
  try {
    config = validateConfig(merged, source);
  } catch (error) {
    if (error instanceof ConfigError) {
      const names = ENV_OVERRIDES.filter((o) => env[o.name]).map((o) => o.name);
      if (names.length > 0) error.message += `\n  (environment overrides in effect: ${names.join(", ")})`;
    }
    throw error;
  }
  await resolveFeatures(config, source);
  return config;
}

/**
 * Adds the features of `interns.features_dir` to those of the file and checks them all: ids unique,
 * connection keys of a known form. A problem stops the start like any other config error.
 */
async function resolveFeatures(config: Config, source: string): Promise<void> {
  const located = config.interns.features.map((feature, index) => ({ feature, where: `interns.features[${index}]` }));
  const problems: string[] = [];
  if (config.interns.features_dir !== null) {
    const read = await readFeatureFiles(config.interns.features_dir);
    problems.push(...read.problems);
    for (const { feature, file } of read.features) located.push({ feature, where: file });
  }
  problems.push(...featureProblems(located, config.vault.mcp_catalog));
  if (problems.length > 0) throw new ConfigError(`invalid configuration (${source}):\n  ${problems.join("\n  ")}`, problems);
  config.interns.features = located.map(({ feature }) => feature);
}
