import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { CopyButton } from "../components/copy-button.tsx";
import { formatCost, formatTime } from "../components/format.ts";
import { CollectionStatus, useCollection } from "../components/collection.tsx";
import { ErrorNotice } from "../components/notice.tsx";
import { managesWorkspace, type PageDefinition, type Viewer } from "../components/page.ts";
import { type ApiKey, KeyLimits } from "../components/key-limits.tsx";
import { WideRow } from "../components/wide-row.tsx";

function CreateKey({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [kind, setKind] = useState("inference");
  const [created, setCreated] = useState<{ name: string; key: string } | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await api<{ key: string; data: ApiKey }>("POST", "/api/v1/keys", { name: name.trim(), kind });
      setCreated({ name: answer.data.name, key: answer.key });
      setError(undefined);
      setName("");
      onCreated();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <section class="card" aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <form class="inline-form" onSubmit={submit}>
        <label>
          Name <input value={name} required maxLength={200} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          Kind{" "}
          <select value={kind} onChange={(event) => setKind((event.target as HTMLSelectElement).value)}>
            <option value="inference">Inference</option>
            <option value="management">Management</option>
          </select>
        </label>
        <button type="submit">Create key</button>
      </form>
      <ErrorNotice error={error} />
      {created ? (
        <div class="secret" role="region" aria-label="New key">
          <p>
            The key <strong>{created.name}</strong> was created. Copy it now: it is shown only once.
          </p>
          <code data-testid="new-key">{created.key}</code> <CopyButton text={created.key} label="Copy the new key" />
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      ) : null}
    </section>
  );
}

function Keys({ viewer }: { viewer: Viewer }) {
  // A plain member lists and revokes the keys it created; creating, limiting and disabling are an admin's.
  const manages = managesWorkspace(viewer);
  const [showDisabled, setShowDisabled] = useState(false);
  const keys = useCollection<ApiKey>(() => api("GET", `/api/v1/keys?include_disabled=${showDisabled}`), [showDisabled]);
  const revoke = (key: ApiKey) => keys.confirmed(`Revoke the key "${key.name}"? Requests with it fail from now on.`, () => api("DELETE", `/api/v1/keys/${encodeURIComponent(key.hash)}`));
  return (
    <section aria-labelledby="keys-title">
      <header class="page-header">
        <h1 id="keys-title">Keys</h1>
        <label class="check">
          <input type="checkbox" checked={showDisabled} onChange={(event) => setShowDisabled((event.target as HTMLInputElement).checked)} /> Show disabled keys
        </label>
      </header>
      {manages ? (
        <CreateKey onCreated={keys.reload} />
      ) : (
        <p class="subtitle">The keys you created (signing in from a tool creates one). You can revoke them here; a workspace admin creates keys and sets their limits.</p>
      )}
      <CollectionStatus collection={keys} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">{manages ? "API keys of this workspace" : "Your API keys in this workspace"}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Kind</th>
              <th scope="col">Usage</th>
              <th scope="col">Limit</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            <WideRow columns={7} when={!manages && keys.answer && keys.items.length === 0}>
              You have no keys in this workspace
            </WideRow>
            {keys.items.map((key) => (
              <Fragment key={key.hash}>
                <tr class={key.disabled ? "disabled" : ""}>
                  <th scope="row">
                    {key.name} {key.disabled ? <span class="badge">disabled</span> : null}
                  </th>
                  <td>
                    <code>{key.label}</code>
                  </td>
                  <td>{key.kind}</td>
                  <td>{formatCost(key.usage)}</td>
                  <td>{key.limit === null ? "none" : `${formatCost(key.limit)}${key.limit_reset ? ` ${key.limit_reset}` : ""} (${formatCost(key.limit_remaining)} left)`}</td>
                  <td>{formatTime(key.created_at)}</td>
                  <td class="actions">
                    {manages ? (
                      <>
                        <button type="button" aria-label={`Edit limits of ${key.name}`} aria-expanded={keys.isOpen(key.hash)} onClick={() => keys.toggle(key.hash)}>
                          Limits
                        </button>
                        <button type="button" aria-label={`${key.disabled ? "Enable" : "Disable"} ${key.name}`} onClick={() => keys.act(() => api("PATCH", `/api/v1/keys/${encodeURIComponent(key.hash)}`, { disabled: !key.disabled }))}>
                          {key.disabled ? "Enable" : "Disable"}
                        </button>
                      </>
                    ) : null}
                    <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => revoke(key)}>
                      Revoke
                    </button>
                  </td>
                </tr>
                <WideRow columns={7} when={keys.isOpen(key.hash)}>
                  <KeyLimits apiKey={key} onSaved={keys.saved} />
                </WideRow>
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** API keys: list, create (the plaintext shown once), limits and resets, disable, revoke. */
export const keysPage: PageDefinition = { path: "keys", title: "Keys", view: Keys };
