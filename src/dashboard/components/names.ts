/**
 * Names instead of ids, from what the viewer may read: workspaces (every one for a deployment admin,
 * else those it administers; a plain member may read none, so its workspaces show by id) and members
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

/** The names of the workspaces the session may read, by id. */
export function useWorkspaceNames(session: Session): Map<string, string> {
  const loaded = useApi(async () => {
    if (session.deployment_admin) return (await api<{ data: Array<{ id: string; name: string }> }>("GET", "/api/v1/workspaces?limit=100")).data;
    const administered = session.workspaces.filter((item) => item.role === "admin");
    const path = (id: string) => `/api/v1/workspaces/${encodeURIComponent(id)}`;
    return Promise.all(administered.map(async (item) => (await api<{ data: { id: string; name: string } }>("GET", path(item.id), undefined, item.id)).data));
  }, [session]);
  return new Map((loaded.data ?? []).map((item) => [item.id, item.name]));
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
