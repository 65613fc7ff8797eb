import { useState } from "preact/hooks";
import { api, currentWorkspace } from "../api.ts";
import { formatTime } from "../components/format.ts";
import { type DirectoryMember, MemberDirectory, memberName, useDirectory } from "../components/member-directory.tsx";
import { ErrorNotice, Loading } from "../components/notice.tsx";
import { managesWorkspace, type PageDefinition, type Viewer } from "../components/page.ts";
import { useAction, valueOf } from "../components/forms.ts";
import { useApi } from "../components/use-api.ts";

interface WorkspaceMember {
  user_id: string;
  role: string;
  created_at: string;
}

/** The selected workspace's members: add one (from the directory when the viewer may read it, else by id) or remove one. */
function WorkspaceMembers({ directory, onChanged }: { directory: DirectoryMember[] | undefined; onChanged: () => void }) {
  const workspace = currentWorkspace() ?? "";
  const base = `/api/v1/workspaces/${encodeURIComponent(workspace)}/members`;
  const members = useApi(() => api<{ data: WorkspaceMember[] }>("GET", `${base}?limit=100`), [workspace]);
  const [chosen, setChosen] = useState("");
  const action = useAction();
  const change = async (path: string, ids: string[]) => {
    if (await action.run(() => api("POST", path, { user_ids: ids }))) (setChosen(""), members.reload(), onChanged());
  };
  const nameOf = (id: string) => {
    const member = directory?.find((item) => item.id === id);
    return member ? memberName(member) : id;
  };
  const outside = (directory ?? []).filter((member) => member.active && !members.data?.data.some((item) => item.user_id === member.id));
  return (
    <section class="card" aria-labelledby="workspace-members-title">
      <h2 id="workspace-members-title">Members of workspace {workspace}</h2>
      <form class="inline-form" onSubmit={(event) => (event.preventDefault(), void change(`${base}/add`, [chosen.trim()]))} aria-label="Add a member to the workspace">
        {directory ? (
          <label>
            Member to add{" "}
            <select value={chosen} onChange={(event) => setChosen(valueOf(event))}>
              <option value="">Choose a member</option>
              {outside.map((member) => (
                <option key={member.id} value={member.id}>
                  {memberName(member)}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <label>
            Member id to add <input value={chosen} onInput={(event) => setChosen(valueOf(event))} />
          </label>
        )}
        <button type="submit">Add to workspace</button>
      </form>
      <ErrorNotice error={members.error ?? action.error} />
      <Loading loading={members.loading && !members.data} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Members of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col" class="wide-only">Added</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(members.data?.data ?? []).map((member) => (
              <tr key={member.user_id}>
                <th scope="row">{nameOf(member.user_id)}</th>
                <td>{member.role}</td>
                <td class="wide-only">{formatTime(member.created_at)}</td>
                <td class="actions">
                  <button type="button" class="danger" aria-label={`Remove ${nameOf(member.user_id)} from the workspace`} onClick={() => void change(`${base}/remove`, [member.user_id])}>
                    Remove
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

function DirectoryAndWorkspace() {
  const directory = useDirectory();
  return (
    <>
      <WorkspaceMembers directory={directory.data ?? []} onChanged={directory.reload} />
      <MemberDirectory directory={directory} onChanged={directory.reload} />
    </>
  );
}

function Members({ viewer }: { viewer: Viewer }) {
  return (
    <section aria-labelledby="members-title">
      <header class="page-header">
        <h1 id="members-title">Members</h1>
      </header>
      {viewer.session.deployment_admin ? <DirectoryAndWorkspace /> : <WorkspaceMembers directory={undefined} onChanged={() => undefined} />}
    </section>
  );
}

/** Members: the selected workspace's members and, for a deployment admin, the organization's directory. */
export const membersPage: PageDefinition = { path: "members", title: "Members", view: Members, visible: managesWorkspace };
