import type { ApiKeyRow, WorkspaceRow } from "../db/schema.ts";
import { LOCATION_HELP, LOCATION_OPTIONS, noPositionals, parseAmount, parseCommand, parseFutureTime, runSubcommand } from "./args.ts";
import { allWorkspaces, resolveWorkspace, withStores } from "./context.ts";
import { CliError, EXIT, formatTable, printError, printJson, printLine, shortTime, UsageError } from "./output.ts";

const LIVE_GATEWAY_NOTE = "A running gateway on this data directory stops accepting a revoked key within a second.";

export const KEYS_HELP = `Usage: roundhouse keys <command> [options]

Creates, lists and revokes API keys directly in the database (no running server needed).

Commands:
  create   create a key and print its plaintext, once
  list     list keys (hash prefix, name, kind, workspace, disabled, created)
  revoke   delete a key by its hash or a unique hash prefix

Run 'roundhouse keys <command> --help' for its options.

Exit codes: 0 success, 1 runtime failure, 2 bad usage or configuration.`;

const CREATE_HELP = `Usage: roundhouse keys create --name NAME [--kind inference|management] [--deployment-admin]
                              [--workspace ID_OR_SLUG] [--limit USD] [--expires ISO] [--json]
                              [--config PATH] [--data-dir DIR]

Creates an API key and prints its plaintext on stdout. The plaintext is shown only this once; only
its SHA-256 hash is stored.

Options:
  --name NAME               a name for people (required, 1 to 200 characters)
  --kind KIND               inference (default) or management
  --deployment-admin        with --kind management: the key administers every workspace of the
                            deployment, not only its own (the first management key always does)
  --workspace ID_OR_SLUG    the key's workspace (default: the first workspace, created if none exists)
  --limit USD               spending limit in US dollars
  --expires ISO             expiry time, e.g. 2030-01-31T00:00:00Z (must be in the future)
  --json                    print {key, hash, name, kind, ...} as JSON instead of the bare key
${LOCATION_HELP}
  -h, --help                show this help

Exit codes: 0 created, 1 runtime failure (e.g. no such workspace), 2 bad usage or configuration.`;

const LIST_HELP = `Usage: roundhouse keys list [--workspace ID_OR_SLUG] [--json] [--config PATH] [--data-dir DIR]

Lists the keys of every workspace (or of one), disabled keys included, oldest first.

Options:
  --workspace ID_OR_SLUG    only this workspace's keys
  --json                    print a JSON array instead of a table
${LOCATION_HELP}
  -h, --help                show this help

Exit codes: 0 listed, 1 runtime failure, 2 bad usage or configuration.`;

const REVOKE_HELP = `Usage: roundhouse keys revoke HASH_OR_PREFIX [--config PATH] [--data-dir DIR]

Deletes the key whose hash is HASH_OR_PREFIX or starts with it (at least 8 hex characters, as shown
by 'roundhouse keys list'). Gateways started afterwards refuse the key with 401.
${LIVE_GATEWAY_NOTE}

Options:
${LOCATION_HELP}
  -h, --help                show this help

Exit codes: 0 revoked, 1 no key matches, 2 bad usage or configuration, or a prefix that matches more
than one key.`;

export async function keys(argv: string[]): Promise<void> {
  return runSubcommand("keys", KEYS_HELP, { create, list, revoke }, argv);
}

function keyJson(row: ApiKeyRow, workspace: WorkspaceRow | undefined) {
  return {
    hash: row.hash,
    name: row.name,
    label: row.label,
    kind: row.kind,
    deployment_admin: row.deploymentAdmin,
    workspace_id: row.workspaceId,
    workspace: workspace?.slug ?? null,
    disabled: row.disabled,
    limit: row.limit,
    expires_at: row.expiresAt,
    created_at: row.createdAt,
  };
}

async function create(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("keys create", argv, {
    ...LOCATION_OPTIONS,
    name: { type: "string" },
    kind: { type: "string" },
    "deployment-admin": { type: "boolean" },
    workspace: { type: "string" },
    limit: { type: "string" },
    expires: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) return printLine(CREATE_HELP);
  noPositionals("keys create", positionals);
  const name = values.name?.trim();
  if (!name) throw new UsageError("--name is required", "keys create");
  if (name.length > 200) throw new UsageError("--name must be at most 200 characters", "keys create");
  const kind = values.kind ?? "inference";
  if (kind !== "inference" && kind !== "management") {
    throw new UsageError(`--kind must be inference or management, got '${kind}'`, "keys create");
  }
  const deploymentAdmin = values["deployment-admin"] === true;
  if (deploymentAdmin && kind !== "management") throw new UsageError("--deployment-admin needs --kind management", "keys create");
  const limit = values.limit === undefined ? null : parseAmount("keys create", "limit", values.limit);
  const expiresAt = values.expires === undefined ? null : parseFutureTime("keys create", "expires", values.expires);
  await withStores(values, async (stores) => {
    const workspace = await resolveWorkspace(stores, values.workspace, { create: true });
    const { row, plaintext } = await stores.keys.create({ kind, name, workspaceId: workspace.id, limit, expiresAt, ...(deploymentAdmin ? { deploymentAdmin } : {}) });
    if (values.json) return printJson({ key: plaintext, ...keyJson(row, workspace) });
    printLine(plaintext);
    printError(
      `Created ${kind} key "${name}"${row.deploymentAdmin ? " (deployment admin)" : ""} in workspace ${workspace.slug} (hash ${row.hash.slice(0, 12)}). ` +
        "It is shown only this once; store it now.",
    );
  });
}

async function list(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("keys list", argv, {
    ...LOCATION_OPTIONS,
    workspace: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) return printLine(LIST_HELP);
  noPositionals("keys list", positionals);
  await withStores(values, async (stores) => {
    const workspaces = values.workspace === undefined ? await allWorkspaces(stores) : [(await resolveWorkspace(stores, values.workspace, { create: false }))!];
    const rows = [];
    for (const workspace of workspaces) {
      for (const row of await stores.keys.list(workspace.id, { offset: 0, limit: Number.MAX_SAFE_INTEGER, includeDisabled: true })) rows.push({ row, workspace });
    }
    if (values.json) return printJson(rows.map(({ row, workspace }) => keyJson(row, workspace)));
    printLine(
      formatTable(
        ["hash", "name", "kind", "workspace", "disabled", "created"],
        rows.map(({ row, workspace }) => [
          row.hash.slice(0, 12),
          row.name,
          row.deploymentAdmin ? "management (deployment admin)" : row.kind,
          workspace.slug,
          row.disabled ? "yes" : "no",
          shortTime(row.createdAt),
        ]),
      ),
    );
  });
}

async function revoke(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("keys revoke", argv, { ...LOCATION_OPTIONS });
  if (values.help) return printLine(REVOKE_HELP);
  if (positionals.length !== 1) throw new UsageError("give exactly one key hash or hash prefix", "keys revoke");
  const prefix = positionals[0]!.toLowerCase();
  if (!/^[0-9a-f]{8,64}$/.test(prefix)) {
    throw new UsageError(`'${positionals[0]}' is not a key hash or a prefix of at least 8 hex characters`, "keys revoke");
  }
  await withStores(values, async (stores) => {
    const matches = await stores.keys.findByHashPrefix(prefix, 6);
    if (matches.length === 0) throw new CliError(`no key's hash starts with ${prefix}`);
    if (matches.length > 1) {
      const shown = matches.slice(0, 5).map((row) => `${row.hash.slice(0, 16)} "${row.name}"`);
      throw new CliError(
        `${prefix} matches more than one key (${shown.join(", ")}${matches.length > 5 ? ", ..." : ""}); give more characters of the hash`,
        EXIT.usage,
      );
    }
    const row = matches[0]!;
    await stores.keys.delete(row.workspaceId, row.hash);
    const workspace = await stores.workspaces.get(row.workspaceId);
    printLine(`Revoked ${row.kind} key "${row.name}" (hash ${row.hash.slice(0, 12)}) in workspace ${workspace?.slug ?? row.workspaceId}.`);
  });
}
