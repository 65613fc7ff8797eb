import { StartError } from "../ops/start-errors.ts";
import { type Gateway, startGateway } from "../server.ts";
import { LOCATION_HELP, LOCATION_OPTIONS, noPositionals, parseCommand, parseInteger } from "./args.ts";
import { watchSupervisor } from "./connection-limit.ts";
import { printLine } from "./output.ts";

export const SERVE_HELP = `Usage: roundhouse serve [--config PATH] [--host HOST] [--port PORT] [--data-dir DIR]

Starts the gateway: loads the config, creates the data directory, the master key file and the
database on first start, applies pending migrations, and listens until SIGTERM or SIGINT.
On the very first start it prints a management key and an inference key, once. SIGHUP reloads
the providers, models and default limits from the config file without dropping a request (a bad
file is rejected and the running config stays); watch_config: true does it on every change.

Options:
${LOCATION_HELP}
  --host HOST               listen address (default 127.0.0.1; env ROUNDHOUSE_HOST)
  --port PORT               listen port, 0 for any free port (default 8080; env ROUNDHOUSE_PORT)
  -h, --help                show this help

Exit codes: 0 stopped cleanly, 1 runtime failure, 2 bad usage or configuration.`;

export async function serve(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("serve", argv, {
    ...LOCATION_OPTIONS,
    host: { type: "string" },
    port: { type: "string" },
  });
  if (values.help) return printLine(SERVE_HELP);
  noPositionals("serve", positionals);
  const port = values.port === undefined ? undefined : parseInteger("serve", "port", values.port, 0, 65535);
  const gateway = await startGateway({
    configPath: values.config,
    overrides: { host: values.host, port, dataDir: values["data-dir"] },
  }).catch((error: unknown) => {
    // A first start that could not listen created its keys all the same: show them before failing.
    if (error instanceof StartError) printGeneratedKeys(error);
    throw error;
  });
  printGeneratedKeys(gateway);
  // One write, so that a reader waiting for "listening on" gets the three lines together.
  printLine(
    `Roundhouse listening on ${gateway.url}\n  dashboard:  ${gateway.url}/\n  API:        ${gateway.url}/api/v1 (reference: ${gateway.url}/api/v1/docs)`,
  );
  const stop = stopOnSignals(gateway);
  watchSupervisor(stop);
  // SIGHUP reloads providers, models and limits from the config file (Windows has no SIGHUP).
  if (process.platform !== "win32") process.on("SIGHUP", () => void gateway.reload("SIGHUP"));
}

/** The keys this first start created, printed once: nothing else ever shows them. */
function printGeneratedKeys(keys: { generatedAdminKey?: string | null; generatedInferenceKey?: string | null }): void {
  const generated = [
    keys.generatedAdminKey ? `  management key: ${keys.generatedAdminKey}` : "",
    keys.generatedInferenceKey ? `  inference key:  ${keys.generatedInferenceKey}` : "",
  ].filter(Boolean);
  if (generated.length > 0) {
    printLine(`\nFirst start: created these keys. They are shown only this once; store them now.\n\n${generated.join("\n")}\n`);
  }
}

/**
 * The one place `serve` wires SIGTERM and SIGINT: the first signal stops the gateway gracefully
 * (server.shutdown_grace_ms), a second one cuts the grace period short; then the process exits 0.
 */
function stopOnSignals(gateway: Gateway): () => void {
  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    if (stopping) {
      void gateway.stop({ graceMs: 0 });
      return;
    }
    stopping = gateway.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`roundhouse: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  return shutdown;
}
