import type { InternRow, WorkspaceRow } from "../db/schema.ts";
import { allWorkspaces, resolveWorkspace, type Stores } from "./context.ts";
import { CliError } from "./output.ts";

/** The intern by id or exact name, in one workspace or in any; a name that several interns share is refused. */
export async function findIntern(stores: Stores, reference: string, workspace: string | undefined): Promise<{ intern: InternRow; workspace: WorkspaceRow }> {
  const workspaces = workspace === undefined ? await allWorkspaces(stores) : [(await resolveWorkspace(stores, workspace, { create: false }))!];
  for (const candidate of workspaces) {
    const intern = await stores.interns.get(candidate.id, reference);
    if (intern) return { intern, workspace: candidate };
  }
  const named: Array<{ intern: InternRow; workspace: WorkspaceRow }> = [];
  for (const candidate of workspaces) for (const intern of await stores.interns.named(candidate.id, reference)) named.push({ intern, workspace: candidate });
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    throw new CliError(`${named.length} interns are named '${reference}' (${named.map(({ intern, workspace: ws }) => `${intern.id} in ${ws.slug}`).join(", ")}); give the id`);
  }
  throw new CliError(`no intern with id or name '${reference}'${workspace === undefined ? "" : ` in workspace ${workspace}`}`);
}

/**
 * The API answers every intern route 404 while the workspace's intern programme is off; the CLI says
 * why and how to turn it on (exit 1).
 */
export function requireProgramme(workspace: WorkspaceRow): void {
  if (!workspace.internApiAccess) {
    throw new CliError(
      `workspace ${workspace.slug} has the intern programme turned off; turn it on with 'roundhouse workspaces update ${workspace.slug} --intern-api-access on'`,
    );
  }
}

/** The workspace an intern command acts on (named, else the first) with its programme on. */
export async function programmeWorkspace(stores: Stores, reference: string | undefined): Promise<WorkspaceRow> {
  const workspace = await resolveWorkspace(stores, reference, { create: false });
  if (!workspace) throw new CliError("there is no workspace yet; create one with 'roundhouse workspaces create'");
  requireProgramme(workspace);
  return workspace;
}

/** An intern found by id or name whose workspace has the programme on. */
export async function programmeIntern(stores: Stores, reference: string, workspace: string | undefined): Promise<{ intern: InternRow; workspace: WorkspaceRow }> {
  const found = await findIntern(stores, reference, workspace);
  requireProgramme(found.workspace);
  return found;
}
