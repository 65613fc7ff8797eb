import { checkSecretName, checkSecretWrite } from "../core/name-rules.ts";
import type { VaultScope } from "../db/vault.ts";
import type { WorkspaceRow } from "../db/schema.ts";
import { LOCATION_AND_HELP, LOCATION_OPTIONS, noPositionals, parseCommand, positionalsOf } from "./args.ts";
import { type Stores, withStores } from "./context.ts";
import { asCli } from "./failures.ts";
import { programmeIntern, programmeWorkspace } from "./intern-lookup.ts";
import { secretJson } from "./json.ts";
import { CliError, formatTable, printError, printJson, printLine, shortTime, UsageError } from "./output.ts";

const SCOPE_HELP = `  --intern INTERN           the intern's own vault (id or name) instead of the workspace's
  --workspace ID_OR_SLUG    the workspace (default: the first; with --intern, where to look for it)`;

export const LIST_HELP = `Usage: roundhouse vault secrets list [--intern INTERN] [--workspace ID_OR_SLUG] [--json]
                                    [--config PATH] [--data-dir DIR]

Lists the names and hosts of the secrets of a workspace's vault or an intern's. Values are never shown.

Options:
${SCOPE_HELP}
  --json                    print a JSON array of {name, hosts, ...} instead of a table
${LOCATION_AND_HELP}

Exit codes: 0 listed, 1 no such workspace or intern, or its intern programme is off, 2 bad usage or
configuration.`;

export const SET_HELP = `Usage: roundhouse vault secrets set NAME --host HOST [--host HOST...] [--value-file FILE]
                                   [--intern INTERN] [--workspace ID_OR_SLUG] [--json]
                                   [--config PATH] [--data-dir DIR]

Stores a secret (sealed with the master key), replacing one of the same name. The value is read from
FILE, else from standard input (end it with Ctrl-D); one trailing newline is dropped. It is never
printed, nor taken from the command line where other users could see it.

Options:
  --host HOST               a host the secret may be sent to (required; repeat for more, at most 100)
  --value-file FILE         read the value from FILE instead of standard input
${SCOPE_HELP}
  --json                    print {name, hosts, ...} as JSON
${LOCATION_AND_HELP}

NAME is 1 to 255 lowercase letters, digits and single underscores, starting with a letter.

Exit codes: 0 stored, 1 no such workspace or intern, or its intern programme is off, 2 bad usage (a
bad name, host or empty value) or configuration.`;

export const DELETE_HELP = `Usage: roundhouse vault secrets delete NAME [--intern INTERN] [--workspace ID_OR_SLUG] [--json]
                                      [--config PATH] [--data-dir DIR]

Deletes a secret from the workspace's vault or an intern's.

Options:
${SCOPE_HELP}
  --json                    print {deleted, name} as JSON
${LOCATION_AND_HELP}

Exit codes: 0 deleted, 1 no such secret, workspace or intern, or its intern programme is off, 2 bad
usage or configuration.`;

const OPTIONS = { ...LOCATION_OPTIONS, intern: { type: "string" }, workspace: { type: "string" }, json: { type: "boolean" } } as const;

/** The vault a command acts on: an intern's, else the workspace's; both need the intern programme on, as in the API. */
async function scopeOf(stores: Stores, values: { intern?: string; workspace?: string }): Promise<{ scope: VaultScope; label: string; workspace: WorkspaceRow }> {
  if (values.intern !== undefined) {
    const { intern, workspace } = await programmeIntern(stores, values.intern, values.workspace);
    return { scope: { workspaceId: workspace.id, internId: intern.id }, label: `intern ${intern.name}'s vault`, workspace };
  }
  const workspace = await programmeWorkspace(stores, values.workspace);
  return { scope: { workspaceId: workspace.id, internId: null }, label: `workspace ${workspace.slug}'s vault`, workspace };
}

export async function listSecrets(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("vault secrets list", argv, OPTIONS);
  if (values.help) return printLine(LIST_HELP);
  noPositionals("vault secrets list", positionals);
  await withStores(values, async (stores) => {
    const { scope } = await scopeOf(stores, values);
    const { rows } = await stores.vault.list(scope, 0, Number.MAX_SAFE_INTEGER - 1);
    if (values.json) return printJson(rows.map(secretJson));
    printLine(formatTable(["name", "hosts", "updated"], rows.map((row) => [row.name, (row.hosts ?? []).join(","), shortTime(row.updatedAt ?? row.createdAt)])));
  });
}

/** The value from the file or standard input, without one trailing newline (what `echo` and editors add). */
async function readValue(file: string | undefined): Promise<string> {
  let text: string;
  if (file !== undefined) {
    const handle = Bun.file(file);
    if (!(await handle.exists())) throw new CliError(`cannot read --value-file ${file}: no such file`);
    text = await handle.text();
  } else {
    // Typed at a terminal: say what is awaited (on stderr, so stdout stays clean).
    if (process.stdin.isTTY) printError("Type the secret's value, then press Ctrl-D on a new line:");
    text = await Bun.stdin.text();
  }
  return text.replace(/\r?\n$/, "");
}

export async function setSecret(argv: string[]): Promise<void> {
  const command = "vault secrets set";
  const { values, positionals } = parseCommand(command, argv, { ...OPTIONS, host: { type: "string", multiple: true }, "value-file": { type: "string" } });
  if (values.help) return printLine(SET_HELP);
  const [name] = positionalsOf(command, positionals, ["NAME"]);
  await asCli(command, () => checkSecretName(name!));
  const hosts = values.host ?? [];
  if (hosts.length === 0) throw new UsageError("give at least one --host the secret may be sent to", command);
  if (hosts.length > 100) throw new UsageError("give at most 100 --host options", command);
  const write = await asCli(command, async () => checkSecretWrite({ hosts, value: await readValue(values["value-file"]) }, { hosts: "--host", value: "the value" }));
  await withStores(values, async (stores) => {
    const { scope, label } = await scopeOf(stores, values);
    const row = await stores.vault.put(scope, name!, write.hosts, write.value);
    if (values.json) return printJson(secretJson(row));
    printLine(`Stored secret ${row.name} in ${label}, for ${write.hosts.join(", ")}.`);
  });
}

export async function deleteSecret(argv: string[]): Promise<void> {
  const command = "vault secrets delete";
  const { values, positionals } = parseCommand(command, argv, OPTIONS);
  if (values.help) return printLine(DELETE_HELP);
  const [name] = positionalsOf(command, positionals, ["NAME"]);
  await asCli(command, () => checkSecretName(name!));
  await withStores(values, async (stores) => {
    const { scope, label } = await scopeOf(stores, values);
    if (!(await stores.vault.delete(scope, name!))) throw new CliError(`no secret ${name} in ${label}`);
    if (values.json) return printJson({ deleted: true, name });
    printLine(`Deleted secret ${name} from ${label}.`);
  });
}
