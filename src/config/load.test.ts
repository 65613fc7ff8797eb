import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ConfigError, loadConfig } from "./load.ts";

describe("configuration", () => {
  test("no file at all gives the embedded defaults", async () => {
    const config = await loadConfig({ env: {} });
    expect(config.server).toEqual({
      host: "127.0.0.1",
      port: 8080,
      max_body_bytes: 10 * 1024 * 1024,
      max_upload_bytes: 100 * 1024 * 1024,
      regional_hostnames: [],
      trusted_proxies: [],
      shutdown_grace_ms: 10_000,
    });
    expect(config.metrics).toEqual({ enabled: true, require_key: false });
    expect(config.data_dir).toBe("./data");
    expect(config.vault.mcp_catalog).toContain("linear");
  });

  test("a YAML file sets keys and environment variables override them", async () => {
    const text = "server:\n  port: 9000\n  host: 0.0.0.0\ndata_dir: /var/lib/rh\n";
    const fromFile = await loadConfig({ env: {}, text });
    expect(fromFile.server.port).toBe(9000);
    expect(fromFile.server.host).toBe("0.0.0.0");
    expect(fromFile.data_dir).toBe("/var/lib/rh");
    const overridden = await loadConfig({
      env: {
        ROUNDHOUSE_PORT: "7000",
        ROUNDHOUSE_HOST: "::1",
        ROUNDHOUSE_DATA_DIR: "/tmp/x",
        ROUNDHOUSE_REGIONAL_HOSTNAMES: "eu.example.com, us.example.com",
        ROUNDHOUSE_LOG_LEVEL: "warn",
      },
      text,
    });
    expect(overridden.server.port).toBe(7000);
    expect(overridden.server.host).toBe("::1");
    expect(overridden.data_dir).toBe("/tmp/x");
    expect(overridden.server.regional_hostnames).toEqual(["eu.example.com", "us.example.com"]);
    expect(overridden.log.level).toBe("warn");
  });

  test("--config path or ROUNDHOUSE_CONFIG names the file; a missing file stops the start", async () => {
    const path = `${process.env.TMPDIR ?? "/tmp"}/rh-config-${process.pid}.yaml`;
    await Bun.write(path, "server:\n  port: 1234\n");
    expect((await loadConfig({ env: { ROUNDHOUSE_CONFIG: path } })).server.port).toBe(1234);
    expect((await loadConfig({ path, env: {} })).server.port).toBe(1234);
    await expect(loadConfig({ path: "/nonexistent/roundhouse.yaml", env: {} })).rejects.toThrow(
      "config file not found: /nonexistent/roundhouse.yaml",
    );
  });

  test("a wrong type is reported with the key, the expectation and the value", async () => {
    const error = await loadConfig({ env: {}, text: "server:\n  port: eighty\n" }).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain("server.port: expected integer");
    expect(error.message).toContain('"eighty"');
  });

  test("storage.url takes a PostgreSQL URL, from the file or ROUNDHOUSE_DATABASE_URL (which wins); anything else names the key, never the URL", async () => {
    const fromFile = await loadConfig({ env: {}, text: "storage:\n  url: postgresql://u:p@db/roundhouse\n" });
    expect(fromFile.storage.url).toBe("postgresql://u:p@db/roundhouse");
    const fromEnv = await loadConfig({ env: { ROUNDHOUSE_DATABASE_URL: "postgres://u:p@other/rh" }, text: "storage:\n  url: postgresql://u:p@db/roundhouse\n" });
    expect(fromEnv.storage.url).toBe("postgres://u:p@other/rh");
    expect((await loadConfig({ env: {} })).storage.url).toBeUndefined();
    const wrong = await loadConfig({ env: { ROUNDHOUSE_DATABASE_URL: "mysql://u:hunter2@db/rh" } }).catch((e) => e);
    expect(wrong).toBeInstanceOf(ConfigError);
    expect(wrong.message).toContain("storage.url: expected a postgres:// or postgresql:// URL");
    expect(wrong.message).not.toContain("hunter2");
  });

  test("an out-of-range value and an unknown key are reported by name", async () => {
    const range = await loadConfig({ env: {}, text: "server:\n  port: 70000\n" }).catch((e) => e);
    expect(range.message).toContain("server.port: expected integer to be less or equal to 65535");
    const unknown = await loadConfig({ env: {}, text: "server:\n  prot: 80\n" }).catch((e) => e);
    expect(unknown.message).toContain("server.prot: unknown key");
    const level = await loadConfig({ env: {}, text: "log:\n  level: loud\n" }).catch((e) => e);
    expect(level.message).toContain("log.level");
  });

  test("server.trusted_proxies takes IP addresses and CIDR ranges; anything else stops the start", async () => {
    const good = await loadConfig({ env: {}, text: "server:\n  trusted_proxies: [10.0.0.1, 10.0.0.0/8, 'fd00::/8', '::1']\n" });
    expect(good.server.trusted_proxies).toEqual(["10.0.0.1", "10.0.0.0/8", "fd00::/8", "::1"]);
    for (const bad of ["proxy.internal", "10.0.0.0/33", "10.0.0.256", "fd00::/129", "10.0.0.0/8/1", "10.0.0.0/"]) {
      const error = await loadConfig({ env: {}, text: `server:\n  trusted_proxies: ['${bad}']\n` }).catch((e) => e);
      expect({ bad, message: String(error.message) }).toEqual({ bad, message: expect.stringContaining(`server.trusted_proxies[0]: expected string to match 'ip-or-cidr' format, got "${bad}"`) });
    }
  });

  test("a bad environment override is reported and named", async () => {
    const error = await loadConfig({ env: { ROUNDHOUSE_PORT: "http" } }).catch((e) => e);
    expect(error.message).toContain("server.port");
    expect(error.message).toContain("ROUNDHOUSE_PORT");
  });

  test("invalid YAML and a non-mapping document stop the start", async () => {
    await expect(loadConfig({ env: {}, text: "server: [\n" })).rejects.toThrow("not valid YAML");
    await expect(loadConfig({ env: {}, text: "- a\n- b\n" })).rejects.toThrow("mapping at the top level");
  });

  test("${ENV} is interpolated in strings and a missing variable is named", async () => {
    const config = await loadConfig({ env: { STATE: "/srv/rh" }, text: "data_dir: ${STATE}/data\n" });
    expect(config.data_dir).toBe("/srv/rh/data");
    const escaped = await loadConfig({ env: {}, text: "data_dir: $${LITERAL}\n" });
    expect(escaped.data_dir).toBe("${LITERAL}");
    await expect(loadConfig({ env: {}, text: "data_dir: ${NOPE}\n" })).rejects.toThrow(
      "data_dir: environment variable NOPE is not set",
    );
  });

  test("a value outside an enumeration lists the allowed values and what was given, suggesting the near one", async () => {
    const level = await loadConfig({ env: {}, text: "log:\n  level: loud\n" }).catch((e) => e);
    expect(level).toBeInstanceOf(ConfigError);
    expect(level.message).toContain('log.level must be one of debug, info, warn, error, silent (got "loud")');
    const client = await loadConfig({ env: {}, text: "upstream:\n  http_client: fech\n" }).catch((e) => e);
    expect(client.message).toContain(`upstream.http_client must be one of builtin, fetch (got "fech") — did you mean 'fetch'?`);
    const type = await loadConfig({ env: {}, text: "providers:\n  x:\n    type: grpc\n" }).catch((e) => e);
    expect(type.message).toContain('providers.x.type must be one of openai-compatible, anthropic, simulated, cohere, tei (got "grpc")');
  });

  test("an unknown key suggests the nearest key of its mapping, or lists the keys the mapping takes", async () => {
    const top = await loadConfig({ env: {}, text: "provders: {}\n" }).catch((e) => e);
    expect(top.message).toContain("unknown key 'provders' — did you mean 'providers'?");
    const swapped = await loadConfig({ env: {}, text: "server:\n  prot: 80\n" }).catch((e) => e);
    expect(swapped.message).toContain("server.prot: unknown key 'prot' — did you mean 'port'?");
    const far = await loadConfig({ env: {}, text: "metrics:\n  colour: red\n" }).catch((e) => e);
    expect(far.message).toContain("metrics.colour: unknown key 'colour' (metrics takes: enabled, require_key)");
    const badSlug = await loadConfig({ env: {}, text: "providers:\n  My Provider: { type: simulated }\n" }).catch((e) => e);
    expect(badSlug.message).toContain("providers: 'My Provider' is not a valid key here");
  });

  test("every problem is reported at once, each on its own line and in ConfigError.problems", async () => {
    const text = "provders: {}\nserver:\n  port: eighty\nlog:\n  level: loud\nlimits:\n  requests_per_minute: many\nmodels:\n  - id: a/b\n";
    const error = await loadConfig({ env: {}, text }).catch((e) => e);
    expect(error.problems).toEqual([
      "provders: unknown key 'provders' — did you mean 'providers'?",
      'server.port: expected integer, got "eighty"',
      'log.level must be one of debug, info, warn, error, silent (got "loud")',
      'limits.requests_per_minute: expected an integer of at least 1 or null, got "many"',
      "models[0].endpoints: required key missing",
    ]);
    expect(error.message).toBe(`invalid configuration (inline text):\n  ${error.problems.join("\n  ")}`);
  });

  test("references between keys are checked together: undeclared providers (with the near slug), twice-declared models, missing base_url", async () => {
    const text = `providers:
  local: { type: simulated }
  remote: { type: openai-compatible }
models:
  - id: a/b
    endpoints: [{ provider: locl }]
  - id: a/b
    endpoints: [{ provider: local }]
`;
    const error = await loadConfig({ env: {}, text }).catch((e) => e);
    expect(error.problems).toEqual([
      "providers.remote.base_url: required for openai-compatible providers",
      `models[0].endpoints[0].provider: unknown provider "locl" (declared: local, remote) — did you mean 'local'?`,
      'models[1].id: "a/b" is declared twice',
    ]);
  });

  test("a feature file's problems are reported like the config's, each with its file", async () => {
    const dir = `${process.env.TMPDIR ?? "/tmp"}/rh-features-${process.pid}`;
    await Bun.write(`${dir}/c.yaml`, "id: c\ntitle: C\nrequirez: [github]\noptional: nope\n");
    const error = await loadConfig({ env: {}, text: `interns:\n  features_dir: ${JSON.stringify(dir)}\n` }).catch((e) => e);
    rmSync(dir, { recursive: true, force: true });
    expect(error.problems).toEqual([`${dir}/c.yaml: requirez: unknown key 'requirez' — did you mean 'requires'?`, `${dir}/c.yaml: optional: expected array, got "nope"`]);
  });
});
