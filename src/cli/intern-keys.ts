import type { ApiKeyRow } from "../db/schema.ts";
import { LOCATION_AND_HELP, LOCATION_OPTIONS, parseCommand, parseFutureTime, positionalsOf, runSubcommand } from "./args.ts";
import { type Stores, withStores } from "./context.ts";
import { programmeIntern } from "./intern-lookup.ts";
import { internKeyJson } from "./json.ts";
import { CliError, EXIT, formatTable, printError, printJson, printLine, shortTime, UsageError } from "./output.ts";

export const INTERN_KEYS_HELP = `Usage: roundhouse interns keys <command> [options]

An intern's own API keys, as POST /interns/{id}/keys mints them (kind intern: the key reaches the
intern's own vault and inference, nothing else).

Commands:
  list INTERN                   the intern's keys (hash prefix, name, disabled, expires, created)
  create INTERN                 mint a key and print its plaintext, once
  revoke INTERN HASH_OR_PREFIX  delete one of the intern's keys

Run 'roundhouse interns keys <command> --help' for its options.

Exit codes: 0 success, 1 runtime failure, 2 bad usage or configuration.`;

const LIST_HELP = `Usage: roundhouse interns keys list INTERN [--workspace ID_OR_SLUG] [--json]
                                    [--config PATH] [--data-dir DIR]

Lists the intern's keys, disabled ones included, oldest first. INTERN is its id or its name.

Options:
  --workspace ID_OR_SLUG    look for the intern in this workspace only (default: every workspace)
  --json                    print a JSON array instead of a table
${LOCATION_AND_HELP}

Exit codes: 0 listed, 1 no such intern or its workspace's programme is off, 2 bad usage or
configuration.`;

const CREATE_HELP = `Usage: roundhouse interns keys create INTERN [--name NAME] [--expires ISO] [--workspace ID_OR_SLUG]
                                      [--json] [--config PATH] [--data-dir DIR]

Mints a key for the intern and prints its plaintext on stdout. The plaintext is shown only this once;
only its SHA-256 hash is stored.

Options:
  --name NAME               a name for people (default "Key of intern NAME"; 1 to 200 characters)
  --expires ISO             expiry time, e.g. 2030-01-31T00:00:00Z (must be in the future)
  --workspace ID_OR_SLUG    look for the intern in this workspace only (default: every workspace)
  --json                    print {key, hash, name, ...} as JSON instead of the bare key
${LOCATION_AND_HELP}

Exit codes: 0 created, 1 no such intern or its workspace's programme is off, 2 bad usage or
configuration.`;

const REVOKE_HELP = `Usage: roundhouse interns keys revoke INTERN HASH_OR_PREFIX [--workspace ID_OR_SLUG] [--json]
                                      [--config PATH] [--data-dir DIR]

Deletes the intern's key whose hash is HASH_OR_PREFIX or starts with it (at least 8 hex characters,
as 'roundhouse interns keys list' shows). A running gateway stops accepting it within a second.

Options:
  --workspace ID_OR_SLUG    look for the intern in this workspace only (default: every workspace)
  --json                    print {deleted, hash} as JSON
${LOCATION_AND_HELP}

Exit codes: 0 revoked, 1 no key of the intern matches, 2 bad usage or configuration, or a prefix
that matches more than one of its keys.`;

const OPTIONS = { ...LOCATION_OPTIONS, workspace: { type: "string" }, json: { type: "boolean" } } as const;

export async function internKeys(argv: string[]): Promise<void> {
  return runSubcommand("interns keys", INTERN_KEYS_HELP, { list, create, revoke }, argv);
}

async function keysOf(stores: Stores, workspaceId: string, internId: string): Promise<ApiKeyRow[]> {
  const rows = await stores.keys.list(workspaceId, { offset: 0, limit: Number.MAX_SAFE_INTEGER, includeDisabled: true });
  return rows.filter((row) => row.internId === internId);
}

async function list(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("interns keys list", argv, OPTIONS);
  if (values.help) return printLine(LIST_HELP);
  const [reference] = positionalsOf("interns keys list", positionals, ["INTERN"]);
  await withStores(values, async (stores) => {
    const { intern, workspace } = await programmeIntern(stores, reference!, values.workspace);
    const rows = await keysOf(stores, workspace.id, intern.id);
    if (values.json) return printJson(rows.map(internKeyJson));
    printLine(formatTable(["hash", "name", "disabled", "expires", "created"], rows.map((row) => [
      row.hash.slice(0, 12), row.name, row.disabled ? "yes" : "no", shortTime(row.expiresAt), shortTime(row.createdAt),
    ])));
  });
}

async function create(argv: string[]): Promise<void> {
  const command = "interns keys create";
  const { values, positionals } = parseCommand(command, argv, { ...OPTIONS, name: { type: "string" }, expires: { type: "string" } });
  if (values.help) return printLine(CREATE_HELP);
  const [reference] = positionalsOf(command, positionals, ["INTERN"]);
  const name = values.name?.trim();
  if (name !== undefined && (name.length < 1 || name.length > 200)) throw new UsageError("--name must be 1 to 200 characters", command);
  const expiresAt = values.expires === undefined ? null : parseFutureTime(command, "expires", values.expires);
  await withStores(values, async (stores) => {
    const { intern, workspace } = await programmeIntern(stores, reference!, values.workspace);
    const { row, plaintext } = await stores.keys.create({
      kind: "intern",
      name: name ?? `Key of intern ${intern.name}`,
      workspaceId: workspace.id,
      internId: intern.id,
      expiresAt,
    });
    if (values.json) return printJson({ key: plaintext, ...internKeyJson(row) });
    printLine(plaintext);
    printError(`Created key "${row.name}" of intern ${intern.name} (hash ${row.hash.slice(0, 12)}). It is shown only this once; store it now.`);
  });
}

async function revoke(argv: string[]): Promise<void> {
  const command = "interns keys revoke";
  const { values, positionals } = parseCommand(command, argv, OPTIONS);
  if (values.help) return printLine(REVOKE_HELP);
  const [reference, raw] = positionalsOf(command, positionals, ["INTERN", "HASH_OR_PREFIX"]);
  const prefix = raw!.toLowerCase();
  if (!/^[0-9a-f]{8,64}$/.test(prefix)) throw new UsageError(`'${raw}' is not a key hash or a prefix of at least 8 hex characters`, command);
  await withStores(values, async (stores) => {
    const { intern, workspace } = await programmeIntern(stores, reference!, values.workspace);
    const matches = (await keysOf(stores, workspace.id, intern.id)).filter((row) => row.hash.startsWith(prefix));
    if (matches.length === 0) throw new CliError(`no key of intern ${intern.name} has a hash starting with ${prefix}`);
    if (matches.length > 1) throw new CliError(`${prefix} matches ${matches.length} keys of intern ${intern.name}; give more characters of the hash`, EXIT.usage);
    const row = matches[0]!;
    await stores.keys.delete(workspace.id, row.hash);
    if (values.json) return printJson({ deleted: true, hash: row.hash });
    printLine(`Revoked key "${row.name}" (hash ${row.hash.slice(0, 12)}) of intern ${intern.name}.`);
  });
}
