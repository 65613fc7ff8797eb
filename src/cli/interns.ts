import type { Config } from "../config/schema.ts";
import { GatewayError } from "../core/errors.ts";
import { checkRequiredConnections, declaredFeature, featureCatalog, type FeatureState, featureState } from "../core/intern-features.ts";
import { LOCATION_HELP, LOCATION_OPTIONS, parseCommand, runSubcommand } from "./args.ts";
import { withStores } from "./context.ts";
import { programmeIntern } from "./intern-lookup.ts";
import { CliError, formatTable, printJson, printLine, shortTime, UsageError } from "./output.ts";

export const INTERNS_HELP = `Usage: roundhouse interns <command> [options]

Manages interns, their keys and their features directly in the database (no running server needed).
The workspace's intern programme must be on ('roundhouse workspaces update W --intern-api-access on').

Commands:
  list                             list interns (id, name, workspace, status, model, created)
  show INTERN                      show one intern
  create --name NAME               create an intern
  delete INTERN                    delete an intern with its keys and vault
  keys list|create|revoke          the intern's own API keys ('roundhouse interns keys --help')
  features add INTERN FEATURE      give the intern the feature, if it can use every required connection
  features list INTERN             the intern's features, each ready, degraded or undeclared
  features remove INTERN FEATURE   take the feature away

INTERN is an intern's id or its name. Run 'roundhouse interns <command> --help' for its options.

Exit codes: 0 success, 1 runtime failure, 2 bad usage or configuration.`;

const COMMON_OPTIONS = `Options:
  --workspace ID_OR_SLUG    look for the intern in this workspace only (default: every workspace)
  --json                    print JSON instead of text
${LOCATION_HELP}
  -h, --help                show this help`;

const ADD_HELP = `Usage: roundhouse interns features add INTERN FEATURE [--workspace ID_OR_SLUG] [--json]
                                      [--config PATH] [--data-dir DIR]

Checks the feature's required connections against the intern's connection list (the connections
that are stored, enabled, and not turned off or hidden for the intern; the last test result does not
matter). If any is missing, nothing is recorded: the missing keys are printed and the exit code is 1.
Otherwise the feature is recorded on the intern; adding it again changes nothing. INTERN is the
intern's id or its name.

${COMMON_OPTIONS}

Exit codes: 0 added (or already there), 1 missing connections, no such intern or feature, or the
intern's workspace's programme is off, 2 bad usage or configuration.`;

const LIST_HELP = `Usage: roundhouse interns features list INTERN [--workspace ID_OR_SLUG] [--json]
                                       [--config PATH] [--data-dir DIR]

Lists the intern's features: ready (every required connection usable), degraded (naming the
connections that went missing since) or undeclared (the config no longer declares it).

${COMMON_OPTIONS}

Exit codes: 0 listed, 1 no such intern or its workspace's programme is off, 2 bad usage or
configuration.`;

const REMOVE_HELP = `Usage: roundhouse interns features remove INTERN FEATURE [--workspace ID_OR_SLUG] [--json]
                                         [--config PATH] [--data-dir DIR]

Takes the feature away from the intern.

${COMMON_OPTIONS}

Exit codes: 0 removed, 1 the intern does not have it, no such intern, or its workspace's programme
is off, 2 bad usage or configuration.`;

const OPTIONS = { ...LOCATION_OPTIONS, workspace: { type: "string" }, json: { type: "boolean" } } as const;

export async function interns(argv: string[]): Promise<void> {
  const manage = (name: "listInterns" | "showIntern" | "createIntern" | "deleteIntern") => async (rest: string[]) => (await import("./interns-manage.ts"))[name](rest);
  return runSubcommand(
    "interns",
    INTERNS_HELP,
    {
      list: manage("listInterns"),
      show: manage("showIntern"),
      create: manage("createIntern"),
      delete: manage("deleteIntern"),
      keys: async (rest) => (await import("./intern-keys.ts")).internKeys(rest),
      features: (rest) => runSubcommand("interns features", INTERNS_HELP, { add, list, remove }, rest),
    },
    argv,
  );
}

function parse(name: string, argv: string[], positionalNames: string[]) {
  const { values, positionals } = parseCommand(`interns features ${name}`, argv, OPTIONS);
  if (values.help) return { help: true as const, values, positionals };
  if (positionals.length !== positionalNames.length) {
    throw new UsageError(`give ${positionalNames.join(" and ")}`, `interns features ${name}`);
  }
  return { help: false as const, values, positionals };
}

function describeState(state: FeatureState): string {
  if (state.status === "degraded") return `degraded: missing ${state.missing.join(", ")}`;
  return state.status;
}

/** Runs `work`, turning the gateway's own refusals (409 missing connections, 404 unknown feature) into exit 1. */
function asCliFailure<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof GatewayError) throw new CliError(error.message);
    throw error;
  }
}

async function add(argv: string[]): Promise<void> {
  const { help, values, positionals } = parse("add", argv, ["INTERN", "FEATURE"]);
  if (help) return printLine(ADD_HELP);
  await withStores(values, async (stores, config: Config) => {
    const { intern, workspace } = await programmeIntern(stores, positionals[0]!, values.workspace);
    const usable = await stores.connections.usableBy(workspace.id, intern.id);
    const definition = asCliFailure(() => declaredFeature(featureCatalog(config.interns.features), positionals[1]!));
    asCliFailure(() => checkRequiredConnections(definition, usable));
    const { row, created } = await stores.internFeatures.add(intern.id, definition.id);
    const state = featureState(row.featureId, row.createdAt, definition, usable);
    if (values.json) return printJson({ ...state, created });
    printLine(created ? `Added feature ${definition.id} to intern ${intern.name} (${intern.id}).` : `Intern ${intern.name} (${intern.id}) already has feature ${definition.id}.`);
  });
}

async function list(argv: string[]): Promise<void> {
  const { help, values, positionals } = parse("list", argv, ["INTERN"]);
  if (help) return printLine(LIST_HELP);
  await withStores(values, async (stores, config: Config) => {
    const { intern, workspace } = await programmeIntern(stores, positionals[0]!, values.workspace);
    const usable = await stores.connections.usableBy(workspace.id, intern.id);
    const catalog = featureCatalog(config.interns.features);
    const states = (await stores.internFeatures.list(intern.id)).map((row) => featureState(row.featureId, row.createdAt, catalog.get(row.featureId), usable));
    if (values.json) return printJson(states);
    if (states.length === 0) return printLine(`Intern ${intern.name} (${intern.id}) has no features.`);
    printLine(formatTable(["feature", "status", "added"], states.map((state) => [state.id, describeState(state), shortTime(state.added_at)])));
  });
}

async function remove(argv: string[]): Promise<void> {
  const { help, values, positionals } = parse("remove", argv, ["INTERN", "FEATURE"]);
  if (help) return printLine(REMOVE_HELP);
  await withStores(values, async (stores) => {
    const { intern } = await programmeIntern(stores, positionals[0]!, values.workspace);
    if (!(await stores.internFeatures.remove(intern.id, positionals[1]!))) {
      throw new CliError(`intern ${intern.name} (${intern.id}) has no feature '${positionals[1]}'`);
    }
    if (values.json) return printJson({ deleted: true, intern: intern.id, feature: positionals[1] });
    printLine(`Removed feature ${positionals[1]} from intern ${intern.name} (${intern.id}).`);
  });
}
