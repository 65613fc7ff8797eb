import { runSubcommand } from "./args.ts";

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

/** Each command's module is loaded only when it runs. */
const lazy = (load: () => Promise<Run>): Run => async (argv) => (await load())(argv);

const SECRETS: Record<string, Run> = {
  list: lazy(async () => (await import("./vault-secrets.ts")).listSecrets),
  set: lazy(async () => (await import("./vault-secrets.ts")).setSecret),
  delete: lazy(async () => (await import("./vault-secrets.ts")).deleteSecret),
};

const CONNECTIONS: Record<string, Run> = {
  list: lazy(async () => (await import("./vault-connections.ts")).listConnections),
  show: lazy(async () => (await import("./vault-connections.ts")).showConnection),
  set: lazy(async () => (await import("./vault-connections.ts")).setConnection),
  delete: lazy(async () => (await import("./vault-connections.ts")).deleteConnection),
};

export async function vault(argv: string[]): Promise<void> {
  return runSubcommand(
    "vault",
    VAULT_HELP,
    {
      secrets: (rest) => runSubcommand("vault secrets", VAULT_HELP, SECRETS, rest),
      connections: (rest) => runSubcommand("vault connections", VAULT_HELP, CONNECTIONS, rest),
    },
    argv,
  );
}
