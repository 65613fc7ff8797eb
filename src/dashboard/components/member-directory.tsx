import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNotice, Loading } from "./notice.tsx";
import { useAction, valueOf } from "./forms.ts";
import { memberName } from "./names.ts";
import { useApi } from "./use-api.ts";

/** A member as `GET /api/v1/organization/members/{id}` answers it. */
export interface DirectoryMember {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  organization_role: string;
  active: boolean;
  scim_managed: boolean;
  workspaces: Array<{ workspace_id: string; role: string }>;
}

/** The directory's members, each read in full (active, SCIM-managed, workspaces). */
export function useDirectory() {
  return useApi(async () => {
    const list = await api<{ data: Array<{ id: string }> }>("GET", "/api/v1/organization/members?limit=100");
    return Promise.all(list.data.map(async (item) => (await api<{ data: DirectoryMember }>("GET", `/api/v1/organization/members/${encodeURIComponent(item.id)}`)).data));
  }, []);
}

/** The deployment's directory of people: add a local member, deactivate or reactivate one. */
export function MemberDirectory({ directory, onChanged, workspaceName }: { directory: ReturnType<typeof useDirectory>; onChanged: () => void; workspaceName: (id: string) => string }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("member");
  const action = useAction();
  const create = async (event: Event) => {
    event.preventDefault();
    if (await action.run(() => api("POST", "/api/v1/organization/members", { email: email.trim(), role }))) (setEmail(""), onChanged());
  };
  const setActive = (member: DirectoryMember, active: boolean) => {
    if (active || confirm(`Deactivate ${member.email}? Their sessions end and every key they created is disabled.`)) {
      void action.run(() => api("PATCH", `/api/v1/organization/members/${encodeURIComponent(member.id)}`, { active })).then(onChanged);
    }
  };
  return (
    <section class="card" aria-labelledby="directory-title">
      <h2 id="directory-title">Directory</h2>
      <form class="inline-form" onSubmit={create} aria-label="Add a member to the directory">
        <label>
          E-mail <input type="email" value={email} onInput={(event) => setEmail(valueOf(event))} />
        </label>
        <label>
          Organization role{" "}
          <select value={role} onChange={(event) => setRole(valueOf(event))}>
            <option value="member">Member</option>
            <option value="admin">Admin</option>
            <option value="owner">Owner</option>
          </select>
        </label>
        <button type="submit">Add to directory</button>
      </form>
      <ErrorNotice error={directory.error ?? action.error} />
      <Loading loading={directory.loading && !directory.data} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">The organization's members</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Workspaces</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(directory.data ?? []).map((member) => (
              <tr key={member.id} class={member.active ? "" : "disabled"}>
                <th scope="row">
                  {memberName(member)} {member.active ? null : <span class="badge">deactivated</span>} {member.scim_managed ? <span class="badge">SCIM</span> : null}
                </th>
                <td>{member.organization_role}</td>
                <td>{member.workspaces.map((item) => `${workspaceName(item.workspace_id)} (${item.role})`).join(", ") || "none"}</td>
                <td class="actions">
                  <button type="button" class={member.active ? "danger" : ""} aria-label={`${member.active ? "Deactivate" : "Reactivate"} ${member.email}`} onClick={() => setActive(member, !member.active)}>
                    {member.active ? "Deactivate" : "Reactivate"}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
