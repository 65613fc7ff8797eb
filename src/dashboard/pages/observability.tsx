import { Fragment } from "preact";
import { api } from "../api.ts";
import { CollectionStatus, useCollection } from "../components/collection.tsx";
import { type Destination, DestinationForm } from "../components/destination-form.tsx";
import { managesWorkspace, type PageDefinition } from "../components/page.ts";
import { WideRow } from "../components/wide-row.tsx";

/** Where a destination sends, and its settings as the API shows them (secrets masked). */
function settingsOf(destination: Destination): string {
  return Object.entries(destination.config)
    .map(([key, value]) => `${key}: ${typeof value === "object" && value !== null ? Object.entries(value).map(([name, item]) => `${name}=${String(item)}`).join(", ") : String(value)}`)
    .join("; ");
}

function Observability() {
  const list = useCollection<Destination>(() => api("GET", "/api/v1/observability/destinations"));
  const remove = (destination: Destination) =>
    list.confirmed(`Delete the destination "${destination.name ?? destination.id}"?`, () => api("DELETE", `/api/v1/observability/destinations/${encodeURIComponent(destination.id)}`));
  return (
    <section aria-labelledby="observability-title">
      <header class="page-header">
        <h1 id="observability-title">Observability</h1>
        <button type="button" aria-expanded={list.creating} onClick={() => list.setCreating(!list.creating)}>
          New destination
        </button>
      </header>
      <p class="subtitle">Generations are exported only while the workspace's export setting is on (Workspaces, Settings).</p>
      {list.creating ? (
        <section class="card" aria-label="Create a destination">
          <h2>Create a destination</h2>
          <DestinationForm onSaved={list.created} />
        </section>
      ) : null}
      <CollectionStatus collection={list} />
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
            {list.items.map((destination) => {
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
                      <button type="button" aria-label={`Edit ${name}`} aria-expanded={list.isOpen(destination.id)} onClick={() => list.toggle(destination.id)}>
                        Edit
                      </button>
                      <button type="button" class="danger" aria-label={`Delete ${name}`} onClick={() => remove(destination)}>
                        Delete
                      </button>
                    </td>
                  </tr>
                  <WideRow columns={5} when={list.isOpen(destination.id)}>
                    <DestinationForm destination={destination} onSaved={list.saved} />
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
