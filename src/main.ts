#!/usr/bin/env bun
import { parseArgs } from "node:util";
import { ConfigError } from "./config/load.ts";
import { MasterKeyError } from "./security/master-key.ts";
import { startGateway } from "./server.ts";
import packageJson from "../package.json" with { type: "json" };

const HELP = `roundhouse ${packageJson.version}: on-prem model routing gateway

Usage:
  roundhouse serve [--config PATH] [--host HOST] [--port PORT] [--data-dir DIR]
  roundhouse --version
  roundhouse --help

serve options:
  --config PATH     YAML config file (default: ROUNDHOUSE_CONFIG, else embedded defaults)
  --host HOST       listen address (default 127.0.0.1; env ROUNDHOUSE_HOST)
  --port PORT       listen port (default 8080; env ROUNDHOUSE_PORT)
  --data-dir DIR    state directory (default ./data; env ROUNDHOUSE_DATA_DIR)

Exit codes: 0 success, 1 runtime failure, 2 bad usage or configuration.`;

async function serve(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      "data-dir": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) usage(`--port must be 0 to 65535, got ${values.port}`);
    port = Number(values.port);
  }
  const gateway = await startGateway({
    configPath: values.config,
    overrides: { host: values.host, port, dataDir: values["data-dir"] },
  });
  const generated = [
    gateway.generatedAdminKey ? `  management key: ${gateway.generatedAdminKey}` : "",
    gateway.generatedInferenceKey ? `  inference key:  ${gateway.generatedInferenceKey}` : "",
  ].filter(Boolean);
  if (generated.length > 0) {
    process.stdout.write(`\nFirst start: created these keys. They are shown only this once; store them now.\n\n${generated.join("\n")}\n\n`);
  }
  process.stdout.write(`Roundhouse listening on ${gateway.url}/api/v1\n`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await gateway.stop();
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

function usage(message: string): never {
  process.stderr.write(`roundhouse: ${message}\nRun 'roundhouse --help' for usage.\n`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    console.log(HELP);
    return;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    console.log(packageJson.version);
    return;
  }
  if (command === "serve") return serve(rest);
  usage(`unknown command '${command}'`);
}

main(Bun.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof MasterKeyError) {
    process.stderr.write(`roundhouse: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
    usage(error.message);
  }
  process.stderr.write(`roundhouse: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
