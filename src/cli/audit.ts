import { createReadStream, existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { type AuditEntry, type ChainReport, ChainVerifier } from "../core/audit-chain.ts";
import { createLogger } from "../core/log.ts";
import { auditEntryJson, AuditLogStore } from "../db/audit-log.ts";
import { LOCATION_AND_HELP, LOCATION_OPTIONS, noPositionals, parseCommand, runSubcommand } from "./args.ts";
import { withStores } from "./context.ts";
import { CliError, EXIT, printError, printJson, printLine, UsageError } from "./output.ts";

export const AUDIT_HELP = `Usage: roundhouse audit <command> [options]

Commands:
  verify   recompute the audit log's chain of hashes (in the database, or in an export file)

Run 'roundhouse audit <command> --help' for its options.

Exit codes: 0 success, 1 runtime failure, 2 bad usage or configuration.`;

const VERIFY_HELP = `Usage: roundhouse audit verify [--file EXPORT.ndjson] [--json] [--config PATH] [--data-dir DIR]

Recomputes the audit log's chain of hashes: every entry must carry the hash of its fields and of
the entry before it, with no entry missing. Reads the database the gateway uses, or with --file an
export from GET /api/v1/audit-log/export (no database needed).

Options:
  --file PATH               verify this NDJSON export instead of the database
  --json                    print {ok, entries, first_bad_seq} as JSON
${LOCATION_AND_HELP}

Exit codes: 0 the chain holds, 1 it is broken (the first bad entry's seq is printed) or the file is
not an export, 2 bad usage or configuration.`;

const FIELDS = ["seq", "id", "at", "actor_kind", "actor_id", "workspace_id", "action", "target", "outcome", "ip", "request_id", "prev_hash", "hash"];

export async function audit(argv: string[]): Promise<number | void> {
  return runSubcommand("audit", AUDIT_HELP, { verify }, argv);
}

/** One export line as an entry; anything else is refused with its line number. */
function parseLine(line: string, number: number): AuditEntry {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new CliError(`line ${number} is not JSON`);
  }
  const missing = value !== null && typeof value === "object" ? FIELDS.filter((field) => !(field in value)) : FIELDS;
  if (missing.length > 0) throw new CliError(`line ${number} is not an audit entry (no ${missing.join(", ")})`);
  return value as AuditEntry;
}

async function verifyFile(path: string): Promise<ChainReport> {
  if (!existsSync(path)) throw new CliError(`--file: ${path} does not exist`);
  const verifier = new ChainVerifier();
  let number = 0;
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    number += 1;
    if (line.trim() !== "") verifier.check(parseLine(line, number));
  }
  return verifier.report();
}

async function verify(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("audit verify", argv, { ...LOCATION_OPTIONS, file: { type: "string" }, json: { type: "boolean" } });
  if (values.help) {
    printLine(VERIFY_HELP);
    return EXIT.ok;
  }
  noPositionals("audit verify", positionals);
  const report =
    values.file !== undefined
      ? await verifyFile(values.file)
      : await withStores(values, async ({ backend }) => {
          const verifier = new ChainVerifier();
          for await (const row of new AuditLogStore(backend, createLogger("error", (line) => process.stderr.write(line))).entries()) {
            verifier.check(auditEntryJson(row));
          }
          return verifier.report();
        });
  if (values.json) printJson(report);
  else if (report.ok) printLine(`audit log intact: ${report.entries} entries`);
  else printError(`audit log broken at seq ${report.first_bad_seq} (${report.entries} entries read)`);
  return report.ok ? EXIT.ok : EXIT.failure;
}
