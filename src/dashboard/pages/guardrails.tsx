import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { api, currentWorkspace } from "../api.ts";
import { CollectionStatus, useCollection } from "../components/collection.tsx";
import { formatCost } from "../components/format.ts";
import { builtinName, type Guardrail, GuardrailForm } from "../components/guardrail-form.tsx";
import type { ApiKey } from "../components/key-limits.tsx";
import { ErrorNotice, Loading } from "../components/notice.tsx";
import { managesWorkspace, type PageDefinition, type Viewer } from "../components/page.ts";
import { useAction, valueOf } from "../components/forms.ts";
import { useMemberNames } from "../components/names.ts";
import { useApi } from "../components/use-api.ts";
import { WideRow } from "../components/wide-row.tsx";

interface KeyAssignment {
  key_hash: string;
  key_name: string;
  key_label: string;
}

/** Assigns a guardrail to keys and members of the workspace, and removes it from them. */
function Assignments({ guardrail, viewer }: { guardrail: Guardrail; viewer: Viewer }) {
  const base = `/api/v1/guardrails/${encodeURIComponent(guardrail.id)}/assignments`;
  const keys = useApi(() => api<{ data: ApiKey[] }>("GET", "/api/v1/keys"), []);
  const members = useApi(() => api<{ data: Array<{ user_id: string }> }>("GET", `/api/v1/workspaces/${encodeURIComponent(currentWorkspace() ?? "")}/members`), []);
  const assignedKeys = useApi(() => api<{ data: KeyAssignment[] }>("GET", `${base}/keys`), [guardrail.id]);
  const assignedMembers = useApi(() => api<{ data: Array<{ user_id: string }> }>("GET", `${base}/members`), [guardrail.id]);
  const memberName = useMemberNames(viewer.session);
  const [key, setKey] = useState("");
  const [member, setMember] = useState("");
  const action = useAction();
  const change = async (path: string, body: unknown) => {
    if (await action.run(() => api("POST", path, body))) (assignedKeys.reload(), assignedMembers.reload());
  };
  return (
    <section class="card" aria-label={`Assignments of ${guardrail.name}`}>
      <h2>Assignments of {guardrail.name}</h2>
      <ErrorNotice error={keys.error ?? assignedKeys.error ?? assignedMembers.error} />
      <form class="inline-form" onSubmit={(event) => (event.preventDefault(), void change(`${base}/keys`, { key_hashes: [key] }))}>
        <label>
          Key{" "}
          <select value={key} onChange={(event) => setKey(valueOf(event))}>
            <option value="">Choose a key</option>
            {(keys.data?.data ?? []).map((item) => (
              <option key={item.hash} value={item.hash}>
                {item.name} ({item.label})
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Assign to key</button>
      </form>
      <ul class="plain-list" aria-label="Assigned keys">
        {(assignedKeys.data?.data ?? []).map((item) => (
          <li key={item.key_hash}>
            {item.key_name} <code>{item.key_label}</code>{" "}
            <button type="button" class="danger" aria-label={`Unassign from key ${item.key_name}`} onClick={() => void change(`${base}/keys/remove`, { key_hashes: [item.key_hash] })}>
              Unassign
            </button>
          </li>
        ))}
      </ul>
      <form class="inline-form" onSubmit={(event) => (event.preventDefault(), void change(`${base}/members`, { member_user_ids: [member] }))}>
        <label>
          Member{" "}
          <select value={member} onChange={(event) => setMember(valueOf(event))}>
            <option value="">Choose a member</option>
            {(members.data?.data ?? []).map((item) => (
              <option key={item.user_id} value={item.user_id} title={item.user_id}>
                {memberName(item.user_id)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Assign to member</button>
      </form>
      <ul class="plain-list" aria-label="Assigned members">
        {(assignedMembers.data?.data ?? []).map((item) => (
          <li key={item.user_id} title={item.user_id}>
            {memberName(item.user_id)}{" "}
            <button type="button" class="danger" aria-label={`Unassign from member ${memberName(item.user_id)}`} onClick={() => void change(`${base}/members/remove`, { member_user_ids: [item.user_id] })}>
              Unassign
            </button>
          </li>
        ))}
      </ul>
      <ErrorNotice error={action.error} />
    </section>
  );
}

function budgetOf(guardrail: Guardrail): string {
  if (guardrail.limit_usd === null) return "none";
  return `${formatCost(guardrail.limit_usd)}${guardrail.reset_interval ? ` ${guardrail.reset_interval}` : ""}`;
}

function filtersOf(guardrail: Guardrail): string {
  const names = [...(guardrail.content_filter_builtins ?? []).map((entry) => `${builtinName(entry.slug)} (${entry.action})`), ...(guardrail.content_filters ?? []).map((entry) => `${entry.label ?? entry.pattern} (${entry.action})`)];
  return names.length > 0 ? names.join(", ") : "none";
}

/** The workspace's default guardrail (it applies to all of the workspace's traffic), loaded to edit. */
function DefaultGuardrail({ id, onSaved }: { id: string; onSaved: () => void }) {
  const loaded = useApi(() => api<{ data: Guardrail }>("GET", `/api/v1/guardrails/${encodeURIComponent(id)}`), [id]);
  return (
    <section class="card" aria-label="The workspace's default guardrail">
      <h2>The workspace's default guardrail</h2>
      <p class="subtitle">It applies to every key of the workspace, besides the guardrails assigned to a key or its member.</p>
      <ErrorNotice error={loaded.error} />
      <Loading loading={loaded.loading} />
      {loaded.data ? <GuardrailForm guardrail={loaded.data.data} onSaved={onSaved} /> : null}
    </section>
  );
}

function Guardrails({ viewer }: { viewer: Viewer }) {
  const list = useCollection<Guardrail>(() => api("GET", "/api/v1/guardrails"));
  const [editingDefault, setEditingDefault] = useState(false);
  const defaultId = `default-${viewer.workspace ?? ""}`;
  const remove = (guardrail: Guardrail) => list.confirmed(`Delete the guardrail "${guardrail.name}"?`, () => api("DELETE", `/api/v1/guardrails/${encodeURIComponent(guardrail.id)}`));
  return (
    <section aria-labelledby="guardrails-title">
      <header class="page-header">
        <h1 id="guardrails-title">Guardrails</h1>
        <div class="form-actions">
          <button type="button" aria-expanded={editingDefault} onClick={() => setEditingDefault(!editingDefault)}>
            Default guardrail
          </button>
          <button type="button" aria-expanded={list.creating} onClick={() => list.setCreating(!list.creating)}>
            New guardrail
          </button>
        </div>
      </header>
      {editingDefault ? <DefaultGuardrail id={defaultId} onSaved={() => (setEditingDefault(false), list.reload())} /> : null}
      {list.creating ? (
        <section class="card" aria-label="Create a guardrail">
          <h2>Create a guardrail</h2>
          <GuardrailForm onSaved={list.created} />
        </section>
      ) : null}
      <CollectionStatus collection={list} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Guardrails of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Budget</th>
              <th scope="col">Content filters</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((guardrail) => (
              <Fragment key={guardrail.id}>
                <tr>
                  <th scope="row">
                    {guardrail.name} {guardrail.id === defaultId ? <span class="badge">workspace default</span> : null}
                  </th>
                  <td>{budgetOf(guardrail)}</td>
                  <td>{filtersOf(guardrail)}</td>
                  <td class="actions">
                    <button type="button" aria-label={`Edit ${guardrail.name}`} aria-expanded={list.isOpen(guardrail.id, "edit")} onClick={() => list.toggle(guardrail.id, "edit")}>
                      Edit
                    </button>
                    {guardrail.id === defaultId ? null : (
                      <button type="button" aria-label={`Assignments of ${guardrail.name}`} aria-expanded={list.isOpen(guardrail.id, "assign")} onClick={() => list.toggle(guardrail.id, "assign")}>
                        Assignments
                      </button>
                    )}
                    <button type="button" class="danger" aria-label={`Delete ${guardrail.name}`} onClick={() => remove(guardrail)}>
                      Delete
                    </button>
                  </td>
                </tr>
                <WideRow columns={4} when={list.isOpen(guardrail.id)}>
                  {list.isOpen(guardrail.id, "edit") ? <GuardrailForm guardrail={guardrail} onSaved={list.saved} /> : <Assignments guardrail={guardrail} viewer={viewer} />}
                </WideRow>
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Guardrails: budgets, allow and deny lists, data policy and content filters, assigned to keys and members. */
export const guardrailsPage: PageDefinition = { path: "guardrails", title: "Guardrails", view: Guardrails, visible: managesWorkspace };
