import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { CollectionStatus, useCollection } from "../components/collection.tsx";
import { formatTime } from "../components/format.ts";
import { ErrorNotice } from "../components/notice.tsx";
import { managesWorkspace, type PageDefinition } from "../components/page.ts";
import { checkedOf, listOfText, listText, numberOfText, useAction, valueOf } from "../components/forms.ts";
import { WorkspaceBudgets } from "../components/workspace-budgets.tsx";
import { WideRow } from "../components/wide-row.tsx";

interface Workspace {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  allowed_providers: string[] | null;
  ignored_providers: string[] | null;
  default_text_model: string | null;
  io_logging_sampling_rate: number;
  is_observability_io_logging_enabled: boolean;
  is_observability_broadcast_enabled: boolean;
  include_byok_in_budgets: boolean;
  created_at: string;
}

const SWITCHES = [
  ["is_observability_io_logging_enabled", "Log request and response content"],
  ["is_observability_broadcast_enabled", "Export generations to observability destinations"],
  ["include_byok_in_budgets", "Budgets count spend on the workspace's own provider keys"],
] as const;

/** A workspace's settings, saved with PATCH; the API's refusal is shown next to the form. */
function WorkspaceSettings({ workspace, onSaved }: { workspace: Workspace; onSaved: () => void }) {
  const [text, setText] = useState({
    name: workspace.name,
    slug: workspace.slug,
    description: workspace.description ?? "",
    allowed_providers: listText(workspace.allowed_providers),
    ignored_providers: listText(workspace.ignored_providers),
    default_text_model: workspace.default_text_model ?? "",
    io_logging_sampling_rate: String(workspace.io_logging_sampling_rate),
  });
  const [switches, setSwitches] = useState<Record<string, boolean>>(Object.fromEntries(SWITCHES.map(([field]) => [field, workspace[field]])));
  const action = useAction();
  const field = (name: keyof typeof text, label: string, multiline = false) => (
    <label>
      {label}{" "}
      {multiline ? (
        <textarea rows={2} value={text[name]} onInput={(event) => setText({ ...text, [name]: valueOf(event) })} />
      ) : (
        <input value={text[name]} onInput={(event) => setText({ ...text, [name]: valueOf(event) })} />
      )}
    </label>
  );
  const save = async (event: Event) => {
    event.preventDefault();
    const body = {
      name: text.name,
      slug: text.slug,
      description: text.description.trim() === "" ? null : text.description,
      allowed_providers: listOfText(text.allowed_providers),
      ignored_providers: listOfText(text.ignored_providers),
      default_text_model: text.default_text_model.trim() === "" ? null : text.default_text_model,
      io_logging_sampling_rate: numberOfText(text.io_logging_sampling_rate) ?? undefined,
      ...switches,
    };
    if (await action.run(() => api("PATCH", `/api/v1/workspaces/${encodeURIComponent(workspace.id)}`, body))) onSaved();
  };
  return (
    <form class="stacked-form" onSubmit={save} aria-label={`Settings of ${workspace.name}`}>
      <fieldset>
        <legend>Settings</legend>
        {field("name", "Name")}
        {field("slug", "Slug")}
        {field("description", "Description")}
        {field("allowed_providers", "Allowed providers (one per line)", true)}
        {field("ignored_providers", "Denied providers (one per line)", true)}
        {field("default_text_model", "Default text model")}
        {field("io_logging_sampling_rate", "Content logging sampling rate (0 to 1)")}
        {SWITCHES.map(([name, label]) => (
          <label key={name} class="check">
            <input type="checkbox" checked={switches[name]} onChange={(event) => setSwitches({ ...switches, [name]: checkedOf(event) })} /> {label}
          </label>
        ))}
      </fieldset>
      <div class="form-actions">
        <button type="submit">Save settings</button>
        <ErrorNotice error={action.error} />
      </div>
    </form>
  );
}

function Workspaces() {
  const list = useCollection<Workspace, { data: Workspace[]; total_count: number }>(() => api("GET", "/api/v1/workspaces?limit=100"));
  return (
    <section aria-labelledby="workspaces-title">
      <header class="page-header">
        <h1 id="workspaces-title">Workspaces</h1>
        {list.answer ? <span class="subtitle">{list.answer.total_count} workspace(s)</span> : null}
      </header>
      <CollectionStatus collection={list} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Workspaces</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Slug</th>
              <th scope="col" class="wide-only">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((workspace) => (
              <Fragment key={workspace.id}>
                <tr>
                  <th scope="row">{workspace.name}</th>
                  <td>
                    <code>{workspace.slug}</code>
                  </td>
                  <td class="wide-only">{formatTime(workspace.created_at)}</td>
                  <td class="actions">
                    <button type="button" aria-label={`Settings of ${workspace.name}`} aria-expanded={list.isOpen(workspace.id, "settings")} onClick={() => list.toggle(workspace.id, "settings")}>
                      Settings
                    </button>
                    <button type="button" aria-label={`Budgets of ${workspace.name}`} aria-expanded={list.isOpen(workspace.id, "budgets")} onClick={() => list.toggle(workspace.id, "budgets")}>
                      Budgets
                    </button>
                  </td>
                </tr>
                <WideRow columns={4} when={list.isOpen(workspace.id)}>
                  {list.isOpen(workspace.id, "settings") ? <WorkspaceSettings workspace={workspace} onSaved={list.saved} /> : <WorkspaceBudgets workspace={workspace} />}
                </WideRow>
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Workspaces: every workspace for a deployment admin (else its own), their settings and interval budgets. */
export const workspacesPage: PageDefinition = { path: "workspaces", title: "Workspaces", view: Workspaces, visible: managesWorkspace };
