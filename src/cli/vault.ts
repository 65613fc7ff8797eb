import { printLine, UsageError } from "./output.ts";

export const VAULT_HELP = `Usage: roundhouse vault <command> [options]

The vaults of workspaces and interns, directly in the database (no running server needed). Secret
values and connection credentials go in and are never printed. The workspace's intern programme must
be on ('roundhouse workspaces update W --intern-api-access on').

Commands:
  secrets list                  names and hosts of a vault's secrets
  secrets set NAME              store a secret, its value read from standard input or a file
  secrets delete NAME           delete a secret
  connections list              the workspace's connections (with --intern: that intern's settings)
  connections show KEY          one connection's state
  connections set KEY           turn a connection off or hide it for one intern
  connections delete KEY        delete a connection and its credentials

Run 'roundhouse vault <command> --help' for its options.

Exit codes: 0 success, 1 runtime failure, 2 bad usage or configuration.`;

type Run = (argv: string[]) => Promise<void>;

const SECRETS: Record<string, () => Promise<Run>> = {
  list: async () => (await import("./vault-secrets.ts")).listSecrets,
  set: async () => (await import("./vault-secrets.ts")).setSecret,
  delete: async () => (await import("./vault-secrets.ts")).deleteSecret,
};

const CONNECTIONS: Record<string, () => Promise<Run>> = {
  list: async () => (await import("./vault-connections.ts")).listConnections,
  show: async () => (await import("./vault-connections.ts")).showConnection,
  set: async () => (await import("./vault-connections.ts")).setConnection,
  delete: async () => (await import("./vault-connections.ts")).deleteConnection,
};

const HELP_WORDS = new Set([undefined, "help", "--help", "-h"]);

export async function vault(argv: string[]): Promise<void> {
  const [group, command, ...rest] = argv;
  if (HELP_WORDS.has(group)) return printLine(VAULT_HELP);
  const commands = group === "secrets" ? SECRETS : group === "connections" ? CONNECTIONS : undefined;
  if (!commands) throw new UsageError(`unknown command 'vault ${group}'`, "vault");
  if (HELP_WORDS.has(command)) return printLine(VAULT_HELP);
  const load = Object.hasOwn(commands, command!) ? commands[command!] : undefined;
  if (!load) throw new UsageError(`unknown command 'vault ${group} ${command}'`, "vault");
  return (await load())(rest);
}
