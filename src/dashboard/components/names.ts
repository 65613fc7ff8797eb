/**
 * Names instead of ids, from what the viewer may read: workspaces (its own, named by the session, and
 * every one for a deployment admin) and members
 * (the directory, for a deployment admin; anyone else knows only their own name).
 */
import { api, type Session } from "../api.ts";
import { useApi } from "./use-api.ts";

/** What a member's name is made of, as the directory and the session give it. */
export interface NamedMember {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
}

/** A member's name as the dashboard shows it: "First Last <e-mail>", else the e-mail. */
export function memberName(member: NamedMember): string {
  const name = [member.first_name, member.last_name].filter(Boolean).join(" ");
  return name ? `${name} <${member.email}>` : member.email;
}

/** Workspace names by id: the session's own workspaces, and every workspace for a deployment admin. */
export function useWorkspaceNames(session: Session): Map<string, string> {
  const loaded = useApi(
    async () => (session.deployment_admin ? (await api<{ data: Array<{ id: string; name: string }> }>("GET", "/api/v1/workspaces?limit=100")).data : []),
    [session],
  );
  return new Map([...session.workspaces, ...(loaded.data ?? [])].map((item) => [item.id, item.name]));
}

/** A member's name by id: from the directory when the viewer may read it, else the viewer's own, else the id. */
export function useMemberNames(session: Session): (id: string) => string {
  const directory = useApi(
    async () => (session.deployment_admin ? (await api<{ data: NamedMember[] }>("GET", "/api/v1/organization/members?limit=100")).data : []),
    [session],
  );
  return (id) => {
    const member = directory.data?.find((item) => item.id === id) ?? (session.member?.id === id ? session.member : undefined);
    return member ? memberName(member) : id;
  };
}
