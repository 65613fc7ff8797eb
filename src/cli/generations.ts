import type { GenerationRow, WorkspaceRow } from "../db/schema.ts";
import { LOCATION_AND_HELP, LOCATION_OPTIONS, noPositionals, parseCommand, parseInteger, parseTime, positionalsOf, runSubcommand } from "./args.ts";
import { allWorkspaces, resolveWorkspace, type Stores, withStores } from "./context.ts";
import { generationJson } from "./json.ts";
import { CliError, EXIT, formatTable, printJson, printLine, shortTime, UsageError } from "./output.ts";

export const GENERATIONS_HELP = `Usage: roundhouse generations <command> [options]

Reads the generation records (one per request the gateway answered) directly from the database.

Commands:
  list      recent generations of a workspace, newest first
  show ID   one generation with its routing attempts

Run 'roundhouse generations <command> --help' for its options.

Exit codes: 0 success, 1 runtime failure, 2 bad usage or configuration.`;

const LIST_HELP = `Usage: roundhouse generations list [--since ISO] [--until ISO] [--model MODEL] [--key HASH_OR_PREFIX]
                                  [--limit N] [--workspace ID_OR_SLUG] [--json]
                                  [--config PATH] [--data-dir DIR]

Lists a workspace's generations, newest first: id, time, model, provider, status, tokens, cost and
latency.

Options:
  --since ISO               from this time on (e.g. 2030-01-31 or 2030-01-31T12:00:00Z)
  --until ISO               before this time
  --model MODEL             only this model id
  --key HASH_OR_PREFIX      only this API key's (its hash or 8+ first characters, as 'keys list' shows)
  --limit N                 at most N records, 1 to 1000 (default 50)
  --workspace ID_OR_SLUG    the workspace (default: the first)
  --json                    print a JSON array of records instead of a table
${LOCATION_AND_HELP}

Exit codes: 0 listed, 1 no such workspace or key, 2 bad usage or configuration.`;

const SHOW_HELP = `Usage: roundhouse generations show ID [--workspace ID_OR_SLUG] [--json] [--config PATH] [--data-dir DIR]

Shows one generation record: model, provider, status, tokens, cost, latency and each routing attempt
(provider, endpoint, status, error code, latency): the record behind GET /generation?id=ID.

Options:
  --workspace ID_OR_SLUG    look in this workspace only (default: every workspace)
  --json                    print the record as JSON
${LOCATION_AND_HELP}

Exit codes: 0 shown, 1 no such generation, 2 bad usage or configuration.`;

export async function generations(argv: string[]): Promise<void> {
  return runSubcommand("generations", GENERATIONS_HELP, { list, show }, argv);
}

/** The full hash of the key a hash or unique prefix names (any workspace's; the filter is per workspace). */
export async function keyHashOf(stores: Stores, raw: string, command: string): Promise<string> {
  const prefix = raw.toLowerCase();
  if (!/^[0-9a-f]{8,64}$/.test(prefix)) throw new UsageError(`--key must be a key hash or a prefix of at least 8 hex characters, got '${raw}'`, command);
  const matches = await stores.keys.findByHashPrefix(prefix, 2);
  if (matches.length === 0) throw new CliError(`no key's hash starts with ${prefix}`);
  if (matches.length > 1) throw new CliError(`${prefix} matches more than one key; give more characters of the hash`, EXIT.usage);
  return matches[0]!.hash;
}

const cost = (usd: number) => `$${usd.toFixed(6)}`;
const tokens = (row: GenerationRow) => `${row.tokensPrompt ?? 0}/${row.tokensCompletion ?? 0}`;

async function list(argv: string[]): Promise<void> {
  const command = "generations list";
  const { values, positionals } = parseCommand(command, argv, {
    ...LOCATION_OPTIONS,
    since: { type: "string" },
    until: { type: "string" },
    model: { type: "string" },
    key: { type: "string" },
    limit: { type: "string" },
    workspace: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) return printLine(LIST_HELP);
  noPositionals(command, positionals);
  const since = values.since === undefined ? undefined : parseTime(command, "since", values.since);
  const until = values.until === undefined ? undefined : parseTime(command, "until", values.until);
  const limit = values.limit === undefined ? 50 : parseInteger(command, "limit", values.limit, 1, 1000);
  await withStores(values, async (stores) => {
    const workspace = await resolveWorkspace(stores, values.workspace, { create: false });
    const keyHash = values.key === undefined ? undefined : await keyHashOf(stores, values.key, command);
    const rows = workspace === undefined ? [] : await stores.analytics.recent(workspace.id, { since, until, model: values.model, keyHash, limit });
    if (values.json) return printJson(rows.map(generationJson));
    printLine(formatTable(["id", "created", "model", "provider", "status", "tokens", "cost", "latency"], rows.map((row) => [
      row.id,
      shortTime(row.createdAt),
      row.model,
      row.providerSlug ?? "-",
      String(row.status),
      tokens(row),
      cost(row.totalCost),
      row.latencyMs === null ? "-" : `${row.latencyMs}ms`,
    ])));
  });
}

function describe(row: GenerationRow, workspace: WorkspaceRow): string {
  const lines: Array<[string, string]> = [
    ["id", row.id],
    ["workspace", workspace.slug],
    ["created", shortTime(row.createdAt)],
    ["model", row.model],
    ["provider", row.providerSlug === null ? "-" : `${row.providerSlug} (${row.upstreamModel ?? row.model})`],
    ["key", row.keyHash.slice(0, 12)],
    ["status", `${row.status}${row.errorCode ? ` ${row.errorCode}` : ""}`],
    ["finish", row.finishReason ?? "-"],
    ["tokens", `${row.tokensPrompt ?? 0} prompt, ${row.tokensCompletion ?? 0} completion, ${row.tokensReasoning ?? 0} reasoning, ${row.tokensCached ?? 0} cached`],
    ["cost", cost(row.totalCost)],
    ["latency", row.latencyMs === null ? "-" : `${row.latencyMs}ms`],
  ];
  const text = lines.map(([label, value]) => `${`${label}:`.padEnd(11)}${value}`).join("\n");
  const attempts = row.attempts ?? [];
  if (attempts.length === 0) return `${text}\n\nNo routing attempts recorded.`;
  const table = formatTable(["#", "provider", "endpoint", "status", "code", "latency"], attempts.map((attempt, index) => [
    String(index + 1), attempt.provider, attempt.endpoint, String(attempt.status), attempt.code ?? "-", `${attempt.latency_ms}ms`,
  ]));
  return `${text}\n\nRouting attempts:\n${table}`;
}

async function show(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("generations show", argv, { ...LOCATION_OPTIONS, workspace: { type: "string" }, json: { type: "boolean" } });
  if (values.help) return printLine(SHOW_HELP);
  const [id] = positionalsOf("generations show", positionals, ["ID"]);
  await withStores(values, async (stores) => {
    const workspaces = values.workspace === undefined ? await allWorkspaces(stores) : [(await resolveWorkspace(stores, values.workspace, { create: false }))!];
    for (const workspace of workspaces) {
      const row = await stores.generations.get(workspace.id, id!);
      if (!row) continue;
      return printLine(values.json ? JSON.stringify(generationJson(row), null, 2) : describe(row, workspace));
    }
    throw new CliError(`no generation '${id}'${values.workspace === undefined ? "" : ` in workspace ${values.workspace}`}`);
  });
}
