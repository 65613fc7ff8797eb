import { WORKSPACE_SLUG_PATTERN, WORKSPACE_SLUG_RULE } from "../core/name-rules.ts";
import type { WorkspaceInput } from "../db/workspaces.ts";
import { LOCATION_AND_HELP, LOCATION_OPTIONS, noPositionals, parseCommand, parseSwitch, positionalsOf, runSubcommand } from "./args.ts";
import { allWorkspaces, resolveWorkspace, withStores } from "./context.ts";
import { asCli } from "./failures.ts";
import { workspaceJson } from "./json.ts";
import { formatTable, printJson, printLine, shortTime, UsageError } from "./output.ts";

export const WORKSPACES_HELP = `Usage: roundhouse workspaces <command> [options]

Lists, creates, changes and deletes workspaces directly in the database (no running server needed),
with the rules of the management API's /workspaces.

Commands:
  list      list every workspace (id, slug, name, intern programme, created)
  show      show one workspace
  create    create a workspace
  update    change a workspace's name, slug, description or intern programme setting
  delete    delete a workspace that has no API keys left (its presets, interns and vault go with it)

Run 'roundhouse workspaces <command> --help' for its options.

Exit codes: 0 success, 1 runtime failure, 2 bad usage or configuration.`;

const FIELD_HELP = `  --description TEXT        a description for people (at most 2000 characters; '' clears it)
  --intern-api-access on|off
                            the intern programme: interns, their keys and vaults are reachable
                            through the API only while it is on`;

const LIST_HELP = `Usage: roundhouse workspaces list [--json] [--config PATH] [--data-dir DIR]

Lists every workspace, oldest first.

Options:
  --json                    print a JSON array instead of a table
${LOCATION_AND_HELP}

Exit codes: 0 listed, 1 runtime failure, 2 bad usage or configuration.`;

const SHOW_HELP = `Usage: roundhouse workspaces show ID_OR_SLUG [--json] [--config PATH] [--data-dir DIR]

Shows one workspace's settings.

Options:
  --json                    print the workspace as JSON
${LOCATION_AND_HELP}

Exit codes: 0 shown, 1 no such workspace, 2 bad usage or configuration.`;

const CREATE_HELP = `Usage: roundhouse workspaces create --name NAME --slug SLUG [--description TEXT]
                                  [--intern-api-access on|off] [--json] [--config PATH] [--data-dir DIR]

Creates a workspace. Its slug must be unused.

Options:
  --name NAME               a name for people (required, 1 to 200 characters)
  --slug SLUG               ${WORKSPACE_SLUG_RULE} (required)
${FIELD_HELP} (default off)
  --json                    print the workspace as JSON
${LOCATION_AND_HELP}

Exit codes: 0 created, 1 runtime failure (e.g. the slug is taken), 2 bad usage or configuration.`;

const UPDATE_HELP = `Usage: roundhouse workspaces update ID_OR_SLUG [--name NAME] [--slug SLUG] [--description TEXT]
                                  [--intern-api-access on|off] [--json] [--config PATH] [--data-dir DIR]

Changes the settings given and leaves the others as they are.

Options:
  --name NAME               a new name (1 to 200 characters)
  --slug SLUG               a new slug: ${WORKSPACE_SLUG_RULE}
${FIELD_HELP}
  --json                    print the workspace as JSON
${LOCATION_AND_HELP}

Exit codes: 0 changed, 1 no such workspace or the slug is taken, 2 bad usage or configuration.`;

const DELETE_HELP = `Usage: roundhouse workspaces delete ID_OR_SLUG [--json] [--config PATH] [--data-dir DIR]

Deletes a workspace with its presets, interns and vault. A workspace that still has API keys is
refused: revoke them first ('roundhouse keys list --workspace ID_OR_SLUG').

Options:
  --json                    print {deleted, id, slug} as JSON
${LOCATION_AND_HELP}

Exit codes: 0 deleted, 1 no such workspace or it still has keys, 2 bad usage or configuration.`;

const FIELD_OPTIONS = {
  name: { type: "string" },
  slug: { type: "string" },
  description: { type: "string" },
  "intern-api-access": { type: "string" },
  json: { type: "boolean" },
} as const;

export async function workspaces(argv: string[]): Promise<void> {
  return runSubcommand("workspaces", WORKSPACES_HELP, { list, show, create, update, delete: remove }, argv);
}

/** The settings given as flags, checked as the API checks its body. */
function fieldsOf(command: string, values: { name?: string; slug?: string; description?: string; "intern-api-access"?: string }): WorkspaceInput {
  const input: WorkspaceInput = {};
  if (values.name !== undefined) {
    const name = values.name.trim();
    if (name.length < 1 || name.length > 200) throw new UsageError("--name must be 1 to 200 characters", command);
    input.name = name;
  }
  if (values.slug !== undefined) {
    if (values.slug.length > 64 || !new RegExp(WORKSPACE_SLUG_PATTERN).test(values.slug)) {
      throw new UsageError(`--slug must be ${WORKSPACE_SLUG_RULE}, got '${values.slug}'`, command);
    }
    input.slug = values.slug;
  }
  if (values.description !== undefined) {
    if (values.description.length > 2000) throw new UsageError("--description must be at most 2000 characters", command);
    input.description = values.description === "" ? null : values.description;
  }
  if (values["intern-api-access"] !== undefined) input.internApiAccess = parseSwitch(command, "intern-api-access", values["intern-api-access"]);
  return input;
}

function describe(row: ReturnType<typeof workspaceJson>): string {
  const lines: Array<[string, string]> = [
    ["id", row.id],
    ["slug", row.slug],
    ["name", row.name],
    ["description", row.description ?? "-"],
    ["intern programme", row.intern_api_access ? "on" : "off"],
    ["data region", row.data_region ?? "-"],
    ["created", shortTime(row.created_at)],
    ["updated", shortTime(row.updated_at)],
  ];
  return lines.map(([label, value]) => `${`${label}:`.padEnd(18)}${value}`).join("\n");
}

async function list(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("workspaces list", argv, { ...LOCATION_OPTIONS, json: { type: "boolean" } });
  if (values.help) return printLine(LIST_HELP);
  noPositionals("workspaces list", positionals);
  await withStores(values, async (stores) => {
    const rows = await allWorkspaces(stores);
    if (values.json) return printJson(rows.map(workspaceJson));
    printLine(formatTable(["id", "slug", "name", "interns", "created"], rows.map((row) => [row.id, row.slug, row.name, row.internApiAccess ? "on" : "off", shortTime(row.createdAt)])));
  });
}

async function show(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("workspaces show", argv, { ...LOCATION_OPTIONS, json: { type: "boolean" } });
  if (values.help) return printLine(SHOW_HELP);
  const [reference] = positionalsOf("workspaces show", positionals, ["ID_OR_SLUG"]);
  await withStores(values, async (stores) => {
    const json = workspaceJson((await resolveWorkspace(stores, reference, { create: false }))!);
    printLine(values.json ? JSON.stringify(json, null, 2) : describe(json));
  });
}

async function create(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("workspaces create", argv, { ...LOCATION_OPTIONS, ...FIELD_OPTIONS });
  if (values.help) return printLine(CREATE_HELP);
  noPositionals("workspaces create", positionals);
  if (values.name === undefined) throw new UsageError("--name is required", "workspaces create");
  if (values.slug === undefined) throw new UsageError("--slug is required", "workspaces create");
  const input = fieldsOf("workspaces create", values);
  await withStores(values, async (stores) => {
    const row = await asCli("workspaces create", () => stores.workspaces.create({ ...input, name: input.name!, slug: input.slug! }, null));
    if (values.json) return printJson(workspaceJson(row));
    printLine(`Created workspace ${row.slug} (${row.id}), intern programme ${row.internApiAccess ? "on" : "off"}.`);
  });
}

async function update(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("workspaces update", argv, { ...LOCATION_OPTIONS, ...FIELD_OPTIONS });
  if (values.help) return printLine(UPDATE_HELP);
  const [reference] = positionalsOf("workspaces update", positionals, ["ID_OR_SLUG"]);
  const input = fieldsOf("workspaces update", values);
  if (Object.keys(input).length === 0) throw new UsageError("nothing to change: give --name, --slug, --description or --intern-api-access", "workspaces update");
  await withStores(values, async (stores) => {
    const workspace = (await resolveWorkspace(stores, reference, { create: false }))!;
    const row = (await asCli("workspaces update", () => stores.workspaces.update(workspace.id, input)))!;
    if (values.json) return printJson(workspaceJson(row));
    printLine(`Updated workspace ${row.slug} (${row.id}), intern programme ${row.internApiAccess ? "on" : "off"}.`);
  });
}

async function remove(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("workspaces delete", argv, { ...LOCATION_OPTIONS, json: { type: "boolean" } });
  if (values.help) return printLine(DELETE_HELP);
  const [reference] = positionalsOf("workspaces delete", positionals, ["ID_OR_SLUG"]);
  await withStores(values, async (stores) => {
    const workspace = (await resolveWorkspace(stores, reference, { create: false }))!;
    await asCli("workspaces delete", () => stores.workspaces.delete(workspace.id), { refusalsFail: true });
    if (values.json) return printJson({ deleted: true, id: workspace.id, slug: workspace.slug });
    printLine(`Deleted workspace ${workspace.slug} (${workspace.id}).`);
  });
}
