import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { type Destination, DestinationForm } from "../components/destination-form.tsx";
import { ErrorNotice, Loading } from "../components/notice.tsx";
import { managesWorkspace, type PageDefinition } from "../components/page.ts";
import { useAction } from "../components/forms.ts";
import { useApi } from "../components/use-api.ts";
import { WideRow } from "../components/wide-row.tsx";

/** Where a destination sends, and its settings as the API shows them (secrets masked). */
function settingsOf(destination: Destination): string {
  return Object.entries(destination.config)
    .map(([key, value]) => `${key}: ${typeof value === "object" && value !== null ? Object.entries(value).map(([name, item]) => `${name}=${String(item)}`).join(", ") : String(value)}`)
    .join("; ");
}

function Observability() {
  const list = useApi(() => api<{ data: Destination[] }>("GET", "/api/v1/observability/destinations"), []);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const action = useAction();
  const remove = (destination: Destination) => {
    const name = destination.name ?? destination.id;
    if (confirm(`Delete the destination "${name}"?`)) void action.run(() => api("DELETE", `/api/v1/observability/destinations/${encodeURIComponent(destination.id)}`)).then(list.reload);
  };
  return (
    <section aria-labelledby="observability-title">
      <header class="page-header">
        <h1 id="observability-title">Observability</h1>
        <button type="button" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          New destination
        </button>
      </header>
      <p class="subtitle">Generations are exported only while the workspace's export setting is on (Workspaces, Settings).</p>
      {creating ? (
        <section class="card" aria-label="Create a destination">
          <h2>Create a destination</h2>
          <DestinationForm onSaved={() => (setCreating(false), list.reload())} />
        </section>
      ) : null}
      <ErrorNotice error={list.error ?? action.error} />
      <Loading loading={list.loading && !list.data} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Observability destinations of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" class="wide-only">Type</th>
              <th scope="col">Settings</th>
              <th scope="col">Sampling</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.data ?? []).map((destination) => {
              const name = destination.name ?? destination.id;
              return (
                <Fragment key={destination.id}>
                  <tr class={destination.enabled ? "" : "disabled"}>
                    <th scope="row">
                      {name} {destination.enabled ? null : <span class="badge">disabled</span>} {destination.filter_rules ? <span class="badge">filtered</span> : null}
                    </th>
                    <td class="wide-only">{destination.type}</td>
                    <td class="settings">{settingsOf(destination)}</td>
                    <td>{`${Math.round(destination.sampling_rate * 1000) / 10}%`}</td>
                    <td class="actions">
                      <button type="button" aria-label={`Edit ${name}`} aria-expanded={editing === destination.id} onClick={() => setEditing(editing === destination.id ? undefined : destination.id)}>
                        Edit
                      </button>
                      <button type="button" class="danger" aria-label={`Delete ${name}`} onClick={() => remove(destination)}>
                        Delete
                      </button>
                    </td>
                  </tr>
                  <WideRow columns={5} when={editing === destination.id}>
                    <DestinationForm destination={destination} onSaved={() => (setEditing(undefined), list.reload())} />
                  </WideRow>
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Observability: the workspace's broadcast destinations (secrets masked), their sampling and filters. */
export const observabilityPage: PageDefinition = { path: "observability", title: "Observability", view: Observability, visible: managesWorkspace };
