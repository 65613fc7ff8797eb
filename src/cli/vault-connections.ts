import { connectionKeyProblem } from "../core/connection-key.ts";
import type { Config } from "../config/schema.ts";
import type { ConnectionRow } from "../db/schema.ts";
import { LOCATION_AND_HELP, LOCATION_OPTIONS, noPositionals, parseCommand, parseSwitch, positionalsOf } from "./args.ts";
import { type Stores, withStores } from "./context.ts";
import { programmeIntern, programmeWorkspace } from "./intern-lookup.ts";
import { connectionJson } from "./json.ts";
import { CliError, formatTable, printJson, printLine, shortTime, UsageError } from "./output.ts";

export const LIST_HELP = `Usage: roundhouse vault connections list [--intern INTERN] [--workspace ID_OR_SLUG] [--json]
                                        [--config PATH] [--data-dir DIR]

Lists the connections of a workspace's vault: key, enabled, whether credentials are stored, the last
test. With --intern, also whether each is turned off or hidden for that intern and whether the intern
can use it. Credentials are never shown.

Options:
  --intern INTERN           add the intern's settings (id or name)
  --workspace ID_OR_SLUG    the workspace (default: the first; with --intern, where to look for it)
  --json                    print a JSON array instead of a table
${LOCATION_AND_HELP}

Exit codes: 0 listed, 1 no such workspace or intern, or its intern programme is off, 2 bad usage or
configuration.`;

export const SHOW_HELP = `Usage: roundhouse vault connections show KEY [--workspace ID_OR_SLUG] [--json]
                                        [--config PATH] [--data-dir DIR]

Shows one connection of the workspace's vault. Its credentials are never shown.

Options:
  --workspace ID_OR_SLUG    the workspace (default: the first)
  --json                    print the connection as JSON
${LOCATION_AND_HELP}

Exit codes: 0 shown, 1 no such connection or workspace, or its intern programme is off, 2 bad usage
(a key that is not a connection key) or configuration.`;

export const SET_HELP = `Usage: roundhouse vault connections set KEY --intern INTERN [--turned-off on|off] [--hidden on|off]
                                       [--workspace ID_OR_SLUG] [--json] [--config PATH] [--data-dir DIR]

Turns a connection off, or hides it, for one intern (or back on), as PUT
/vault/interns/{id}/connections/{key} does. An intern can use a connection that is enabled and
neither turned off nor hidden for it.

Options:
  --intern INTERN           the intern (id or name; required)
  --turned-off on|off       turn the connection off for the intern, or back on
  --hidden on|off           hide the connection from the intern, or show it
  --workspace ID_OR_SLUG    look for the intern in this workspace only (default: every workspace)
  --json                    print {key, intern_id, turned_off, hidden} as JSON
${LOCATION_AND_HELP}

Exit codes: 0 set, 1 no such connection or intern, or its intern programme is off, 2 bad usage or
configuration.`;

export const DELETE_HELP = `Usage: roundhouse vault connections delete KEY [--workspace ID_OR_SLUG] [--json]
                                          [--config PATH] [--data-dir DIR]

Deletes a connection and its credentials from the workspace's vault.

Options:
  --workspace ID_OR_SLUG    the workspace (default: the first)
  --json                    print {deleted, key} as JSON
${LOCATION_AND_HELP}

Exit codes: 0 deleted, 1 no such connection or workspace, or its intern programme is off, 2 bad
usage or configuration.`;

const OPTIONS = { ...LOCATION_OPTIONS, workspace: { type: "string" }, json: { type: "boolean" } } as const;

function checkKey(command: string, key: string, config: Config): string {
  const problem = connectionKeyProblem(key, config.vault.mcp_catalog);
  if (problem) throw new UsageError(`KEY: ${problem}`, command);
  return key;
}

async function findConnection(stores: Stores, workspaceId: string, key: string): Promise<ConnectionRow> {
  const row = await stores.connections.get(workspaceId, key);
  if (!row) throw new CliError(`no connection '${key}'`);
  return row;
}

const lastTest = (row: ConnectionRow) => (row.lastTestAt === null ? "-" : `${row.lastTestOk ? "ok" : "failed"} ${shortTime(row.lastTestAt)}`);

export async function listConnections(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("vault connections list", argv, { ...OPTIONS, intern: { type: "string" } });
  if (values.help) return printLine(LIST_HELP);
  noPositionals("vault connections list", positionals);
  await withStores(values, async (stores) => {
    const found = values.intern === undefined ? undefined : await programmeIntern(stores, values.intern, values.workspace);
    const workspace = found?.workspace ?? (await programmeWorkspace(stores, values.workspace));
    const rows = await stores.connections.list(workspace.id);
    if (!found) {
      if (values.json) return printJson(rows.map(connectionJson));
      return printLine(formatTable(["key", "enabled", "credentials", "last test"], rows.map((row) => [
        row.key, row.enabled ? "yes" : "no", row.credentialsEnc === null ? "no" : "stored", lastTest(row),
      ])));
    }
    const usable = new Set(await stores.connections.usableBy(workspace.id, found.intern.id));
    const withSettings = [];
    for (const row of rows) {
      const setting = await stores.connections.settingFor(row.id, found.intern.id);
      withSettings.push({ ...connectionJson(row), intern_id: found.intern.id, turned_off: setting.turnedOff, hidden: setting.hidden, usable: usable.has(row.key) });
    }
    if (values.json) return printJson(withSettings);
    printLine(formatTable(["key", "enabled", "turned off", "hidden", "usable"], withSettings.map((row) => [
      row.key, row.enabled ? "yes" : "no", row.turned_off ? "yes" : "no", row.hidden ? "yes" : "no", row.usable ? "yes" : "no",
    ])));
  });
}

export async function showConnection(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("vault connections show", argv, OPTIONS);
  if (values.help) return printLine(SHOW_HELP);
  const [key] = positionalsOf("vault connections show", positionals, ["KEY"]);
  await withStores(values, async (stores, config) => {
    checkKey("vault connections show", key!, config);
    const workspace = await programmeWorkspace(stores, values.workspace);
    const row = await findConnection(stores, workspace.id, key!);
    if (values.json) return printJson(connectionJson(row));
    const lines: Array<[string, string]> = [
      ["key", row.key],
      ["workspace", workspace.slug],
      ["enabled", row.enabled ? "yes" : "no"],
      ["credentials", row.credentialsEnc === null ? "none" : "stored (never shown)"],
      ["last test", row.lastTestAt === null ? "-" : `${lastTest(row)}${row.lastTestMessage ? `: ${row.lastTestMessage}` : ""}`],
      ["created", shortTime(row.createdAt)],
    ];
    printLine(lines.map(([label, value]) => `${`${label}:`.padEnd(14)}${value}`).join("\n"));
  });
}

export async function setConnection(argv: string[]): Promise<void> {
  const command = "vault connections set";
  const { values, positionals } = parseCommand(command, argv, { ...OPTIONS, intern: { type: "string" }, "turned-off": { type: "string" }, hidden: { type: "string" } });
  if (values.help) return printLine(SET_HELP);
  const [key] = positionalsOf(command, positionals, ["KEY"]);
  if (values.intern === undefined) throw new UsageError("--intern is required", command);
  const turnedOff = values["turned-off"] === undefined ? undefined : parseSwitch(command, "turned-off", values["turned-off"]);
  const hidden = values.hidden === undefined ? undefined : parseSwitch(command, "hidden", values.hidden);
  if (turnedOff === undefined && hidden === undefined) throw new UsageError("nothing to change: give --turned-off or --hidden", command);
  await withStores(values, async (stores, config) => {
    checkKey(command, key!, config);
    const { intern, workspace } = await programmeIntern(stores, values.intern!, values.workspace);
    const connection = await findConnection(stores, workspace.id, key!);
    const setting = await stores.connections.setForIntern(connection.id, intern.id, { turnedOff, hidden });
    if (values.json) return printJson({ key: connection.key, intern_id: intern.id, turned_off: setting.turnedOff, hidden: setting.hidden });
    printLine(`Connection ${connection.key} for intern ${intern.name}: turned off ${setting.turnedOff ? "yes" : "no"}, hidden ${setting.hidden ? "yes" : "no"}.`);
  });
}

export async function deleteConnection(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("vault connections delete", argv, OPTIONS);
  if (values.help) return printLine(DELETE_HELP);
  const [key] = positionalsOf("vault connections delete", positionals, ["KEY"]);
  await withStores(values, async (stores, config) => {
    checkKey("vault connections delete", key!, config);
    const workspace = await programmeWorkspace(stores, values.workspace);
    if (!(await stores.connections.delete(workspace.id, key!))) throw new CliError(`no connection '${key}'`);
    if (values.json) return printJson({ deleted: true, key });
    printLine(`Deleted connection ${key} and its credentials from workspace ${workspace.slug}.`);
  });
}
