import { INTERN_STATUSES } from "../db/interns.ts";
import type { InternRow, WorkspaceRow } from "../db/schema.ts";
import { LOCATION_AND_HELP, LOCATION_OPTIONS, noPositionals, parseCommand, positionalsOf } from "./args.ts";
import { allWorkspaces, withStores } from "./context.ts";
import { programmeIntern, programmeWorkspace } from "./intern-lookup.ts";
import { internJson } from "./json.ts";
import { CliError, formatTable, printJson, printLine, shortTime, UsageError } from "./output.ts";

export const LIST_HELP = `Usage: roundhouse interns list [--workspace ID_OR_SLUG] [--status S[,S...]] [--json]
                             [--config PATH] [--data-dir DIR]

Lists the interns of one workspace, or of every workspace whose intern programme is on.

Options:
  --workspace ID_OR_SLUG    only this workspace (its intern programme must be on)
  --status S[,S...]         only interns in these states: ${INTERN_STATUSES.join(", ")}
  --json                    print a JSON array instead of a table
${LOCATION_AND_HELP}

Exit codes: 0 listed, 1 no such workspace or its programme is off, 2 bad usage or configuration.`;

export const SHOW_HELP = `Usage: roundhouse interns show INTERN [--workspace ID_OR_SLUG] [--json] [--config PATH] [--data-dir DIR]

Shows one intern. INTERN is its id or its name.

Options:
  --workspace ID_OR_SLUG    look for the intern in this workspace only (default: every workspace)
  --json                    print the intern as JSON
${LOCATION_AND_HELP}

Exit codes: 0 shown, 1 no such intern or its workspace's programme is off, 2 bad usage or
configuration.`;

export const CREATE_HELP = `Usage: roundhouse interns create --name NAME [--description TEXT] [--instructions-file FILE]
                               [--model MODEL] [--workspace ID_OR_SLUG] [--json]
                               [--config PATH] [--data-dir DIR]

Creates an intern (stopped: Roundhouse stores interns, it does not run them). The workspace's intern
programme must be on ('roundhouse workspaces update W --intern-api-access on').

Options:
  --name NAME               a name for people (required, 1 to 200 characters)
  --description TEXT        a description (at most 2000 characters)
  --instructions-file FILE  the intern's instructions, read from FILE (at most 100000 characters)
  --model MODEL             the model the intern uses (at most 256 characters)
  --workspace ID_OR_SLUG    the intern's workspace (default: the first workspace)
  --json                    print the intern as JSON
${LOCATION_AND_HELP}

Exit codes: 0 created, 1 no such workspace or its programme is off, 2 bad usage or configuration.`;

export const DELETE_HELP = `Usage: roundhouse interns delete INTERN [--workspace ID_OR_SLUG] [--json] [--config PATH] [--data-dir DIR]

Deletes an intern with its keys, vault secrets, connection settings and features. INTERN is its id
or its name.

Options:
  --workspace ID_OR_SLUG    look for the intern in this workspace only (default: every workspace)
  --json                    print {deleted, id} as JSON
${LOCATION_AND_HELP}

Exit codes: 0 deleted, 1 no such intern or its workspace's programme is off, 2 bad usage or
configuration.`;

const OPTIONS = { ...LOCATION_OPTIONS, workspace: { type: "string" }, json: { type: "boolean" } } as const;

function describe(intern: InternRow, workspace: WorkspaceRow): string {
  const lines: Array<[string, string]> = [
    ["id", intern.id],
    ["name", intern.name],
    ["workspace", workspace.slug],
    ["status", intern.status],
    ["model", intern.model ?? "-"],
    ["description", intern.description ?? "-"],
    ["instructions", intern.instructions === null ? "-" : `${intern.instructions.length} characters`],
    ["created", shortTime(intern.createdAt)],
  ];
  return lines.map(([label, value]) => `${`${label}:`.padEnd(14)}${value}`).join("\n");
}

export async function listInterns(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("interns list", argv, { ...OPTIONS, status: { type: "string" } });
  if (values.help) return printLine(LIST_HELP);
  noPositionals("interns list", positionals);
  const statuses = values.status?.split(",").map((status) => status.trim());
  const unknown = statuses?.find((status) => !(INTERN_STATUSES as readonly string[]).includes(status));
  if (unknown !== undefined) throw new UsageError(`--status takes a comma list of: ${INTERN_STATUSES.join(", ")}; got '${unknown}'`, "interns list");
  await withStores(values, async (stores) => {
    const workspaces = values.workspace === undefined
      ? (await allWorkspaces(stores)).filter((workspace) => workspace.internApiAccess)
      : [await programmeWorkspace(stores, values.workspace)];
    const rows: Array<{ intern: InternRow; workspace: WorkspaceRow }> = [];
    for (const workspace of workspaces) {
      const { rows: interns } = await stores.interns.list(workspace.id, { limit: Number.MAX_SAFE_INTEGER - 1, statuses });
      for (const intern of interns) rows.push({ intern, workspace });
    }
    if (values.json) return printJson(rows.map(({ intern, workspace }) => internJson(intern, workspace)));
    printLine(formatTable(["id", "name", "workspace", "status", "model", "created"], rows.map(({ intern, workspace }) => [
      intern.id, intern.name, workspace.slug, intern.status, intern.model ?? "-", shortTime(intern.createdAt),
    ])));
  });
}

export async function showIntern(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("interns show", argv, OPTIONS);
  if (values.help) return printLine(SHOW_HELP);
  const [reference] = positionalsOf("interns show", positionals, ["INTERN"]);
  await withStores(values, async (stores) => {
    const { intern, workspace } = await programmeIntern(stores, reference!, values.workspace);
    printLine(values.json ? JSON.stringify(internJson(intern, workspace), null, 2) : describe(intern, workspace));
  });
}

/** A text option's value within the API's length limit. */
function bounded(command: string, flag: string, value: string | undefined, max: number, min = 0): string | undefined {
  if (value === undefined) return undefined;
  if (value.length < min || value.length > max) throw new UsageError(`--${flag} must be ${min > 0 ? `${min} to ${max}` : `at most ${max}`} characters`, command);
  return value;
}

export async function createIntern(argv: string[]): Promise<void> {
  const command = "interns create";
  const { values, positionals } = parseCommand(command, argv, {
    ...OPTIONS,
    name: { type: "string" },
    description: { type: "string" },
    "instructions-file": { type: "string" },
    model: { type: "string" },
  });
  if (values.help) return printLine(CREATE_HELP);
  noPositionals(command, positionals);
  if (values.name === undefined) throw new UsageError("--name is required", command);
  const name = bounded(command, "name", values.name.trim(), 200, 1)!;
  const description = bounded(command, "description", values.description, 2000);
  const model = bounded(command, "model", values.model, 256);
  let instructions: string | undefined;
  if (values["instructions-file"] !== undefined) {
    const file = Bun.file(values["instructions-file"]);
    if (!(await file.exists())) throw new CliError(`cannot read --instructions-file ${values["instructions-file"]}: no such file`);
    instructions = bounded(command, "instructions-file", await file.text(), 100_000);
  }
  await withStores(values, async (stores) => {
    const workspace = await programmeWorkspace(stores, values.workspace);
    const intern = await stores.interns.create(workspace.id, { name, description, instructions, model });
    if (values.json) return printJson(internJson(intern, workspace));
    printLine(`Created intern ${intern.name} (${intern.id}) in workspace ${workspace.slug}.`);
  });
}

export async function deleteIntern(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("interns delete", argv, OPTIONS);
  if (values.help) return printLine(DELETE_HELP);
  const [reference] = positionalsOf("interns delete", positionals, ["INTERN"]);
  await withStores(values, async (stores) => {
    const { intern, workspace } = await programmeIntern(stores, reference!, values.workspace);
    await stores.interns.delete(workspace.id, intern.id);
    if (values.json) return printJson({ deleted: true, id: intern.id });
    printLine(`Deleted intern ${intern.name} (${intern.id}) from workspace ${workspace.slug}, with its keys and vault.`);
  });
}
