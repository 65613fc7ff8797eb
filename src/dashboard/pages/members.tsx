import { useState } from "preact/hooks";
import { api, currentWorkspace } from "../api.ts";
import { formatTime } from "../components/format.ts";
import { CollectionStatus, useCollection } from "../components/collection.tsx";
import { valueOf } from "../components/forms.ts";
import { type DirectoryMember, MemberDirectory, useDirectory } from "../components/member-directory.tsx";
import { memberName } from "../components/names.ts";
import { managesWorkspace, type PageDefinition, type Viewer } from "../components/page.ts";

interface WorkspaceMember {
  user_id: string;
  role: string;
  created_at: string;
}

/** The selected workspace's members: add one (from the directory when the viewer may read it, else by id) or remove one. */
function WorkspaceMembers({ viewer, directory, onChanged }: { viewer: Viewer; directory: DirectoryMember[] | undefined; onChanged: () => void }) {
  const workspace = currentWorkspace() ?? "";
  const base = `/api/v1/workspaces/${encodeURIComponent(workspace)}/members`;
  const members = useCollection<WorkspaceMember>(() => api("GET", `${base}?limit=100`), [workspace]);
  const [chosen, setChosen] = useState("");
  const change = async (path: string, ids: string[]) => {
    if (await members.act(() => api("POST", path, { user_ids: ids }))) (setChosen(""), onChanged());
  };
  const nameOf = (id: string) => {
    const member = directory?.find((item) => item.id === id) ?? (viewer.session.member?.id === id ? viewer.session.member : undefined);
    return member ? memberName(member) : id;
  };
  const outside = (directory ?? []).filter((member) => member.active && !members.items.some((item) => item.user_id === member.id));
  return (
    <section class="card" aria-labelledby="workspace-members-title">
      <h2 id="workspace-members-title" title={`Workspace ${workspace}`}>
        Members of workspace {viewer.workspaceName(workspace)}
      </h2>
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
      <CollectionStatus collection={members} />
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
            {members.items.map((member) => (
              <tr key={member.user_id}>
                <th scope="row" title={member.user_id}>
                  {nameOf(member.user_id)}
                </th>
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

function DirectoryAndWorkspace({ viewer }: { viewer: Viewer }) {
  const directory = useDirectory();
  return (
    <>
      <WorkspaceMembers viewer={viewer} directory={directory.data ?? []} onChanged={directory.reload} />
      <MemberDirectory directory={directory} onChanged={directory.reload} workspaceName={viewer.workspaceName} />
    </>
  );
}

function Members({ viewer }: { viewer: Viewer }) {
  return (
    <section aria-labelledby="members-title">
      <header class="page-header">
        <h1 id="members-title">Members</h1>
      </header>
      {viewer.session.deployment_admin ? <DirectoryAndWorkspace viewer={viewer} /> : <WorkspaceMembers viewer={viewer} directory={undefined} onChanged={() => undefined} />}
    </section>
  );
}

/** Members: the selected workspace's members and, for a deployment admin, the organization's directory. */
export const membersPage: PageDefinition = { path: "members", title: "Members", view: Members, visible: managesWorkspace };
