import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { formatTime } from "./format.ts";
import { useAction, valueOf } from "./forms.ts";
import { ErrorNotice, Loading } from "./notice.tsx";
import { useApi } from "./use-api.ts";

/** A feature the operator declares, as `GET /features` answers it. */
interface DeclaredFeature {
  id: string;
  title: string;
  description: string;
  requires: string[];
  optional: string[];
}

/** A feature of the intern, as `GET /interns/{id}/features` answers it. */
interface InternFeature {
  id: string;
  title: string | null;
  description: string | null;
  requires: string[];
  optional: string[];
  added_at: string;
  status: "ready" | "degraded" | "undeclared";
  missing: string[];
  missing_optional: string[];
}

async function load(internId: string) {
  const [mine, declared] = await Promise.all([
    api<{ data: InternFeature[] }>("GET", `/api/v1/interns/${encodeURIComponent(internId)}/features`),
    api<{ data: DeclaredFeature[] }>("GET", "/api/v1/features"),
  ]);
  return { mine: mine.data, declared: declared.data };
}

/** What a feature needs, in words: "Needs github, mcp:x; optional: slack". */
function needs(feature: { requires: string[]; optional: string[] }): string {
  const required = feature.requires.length > 0 ? `Needs ${feature.requires.join(", ")}` : "Needs no connection";
  return feature.optional.length > 0 ? `${required}; optional: ${feature.optional.join(", ")}` : required;
}

/** A feature's state in words (never colour alone): ready, degraded naming what is missing, or undeclared. */
function FeatureStatus({ feature }: { feature: InternFeature }) {
  if (feature.status === "undeclared") {
    return (
      <span>
        <strong>Undeclared</strong> — the operator no longer declares this feature
      </span>
    );
  }
  return (
    <span>
      {feature.status === "degraded" ? (
        <>
          <strong>Degraded</strong> — missing: {feature.missing.join(", ")}
        </>
      ) : (
        "Ready"
      )}
      {feature.missing_optional.length > 0 ? <span class="muted"> (optional, not usable: {feature.missing_optional.join(", ")})</span> : null}
    </span>
  );
}

/** The form that gives the intern a declared feature; the API's refusal (the connections it lacks) shows under it. */
function AddFeature({ internId, available, onAdded }: { internId: string; available: DeclaredFeature[]; onAdded: () => void }) {
  const [chosen, setChosen] = useState("");
  const [busy, setBusy] = useState(false);
  const action = useAction();
  const selected = available.find((feature) => feature.id === chosen) ?? available[0];
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!selected || busy) return;
    setBusy(true);
    const added = await action.run(() => api("POST", `/api/v1/interns/${encodeURIComponent(internId)}/features`, { feature: selected.id }));
    setBusy(false);
    if (added) {
      setChosen("");
      onAdded();
    }
  };
  if (available.length === 0) return <p class="subtitle">This intern has every feature the operator declares.</p>;
  return (
    <form aria-label="Add a feature" onSubmit={submit}>
      <div class="inline-form">
        <label>
          Declared feature
          <select value={selected?.id} aria-describedby="feature-needs" onChange={(event) => setChosen(valueOf(event))}>
            {available.map((feature) => (
              <option key={feature.id} value={feature.id}>
                {feature.title}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy}>
          Add feature
        </button>
      </div>
      <p class="subtitle" id="feature-needs">
        {selected?.description ? `${selected.description.replace(/\.+$/, "")}. ` : ""}
        {selected ? `${needs(selected)}.` : ""}
      </p>
      <ErrorNotice error={action.error} />
    </form>
  );
}

/**
 * The Features tab: the intern's features with their state (a feature whose required connection went
 * away since is degraded, naming what is missing), adding a declared one (refused, naming the
 * connections the intern cannot use, when one is missing) and removing one after confirmation.
 */
export function InternFeatures({ internId, internName }: { internId: string; internName: string }) {
  const loaded = useApi(() => load(internId), [internId]);
  const removal = useAction();
  const mine = loaded.data?.mine ?? [];
  const available = (loaded.data?.declared ?? []).filter((feature) => !mine.some((own) => own.id === feature.id));
  const remove = (feature: InternFeature) => {
    const name = feature.title ?? feature.id;
    if (!confirm(`Remove the feature "${name}" from ${internName}?`)) return;
    void removal.run(() => api("DELETE", `/api/v1/interns/${encodeURIComponent(internId)}/features/${encodeURIComponent(feature.id)}`)).then(loaded.reload);
  };
  return (
    <section aria-labelledby="features-title">
      <h2 id="features-title">Features of this intern</h2>
      <ErrorNotice error={loaded.error ?? removal.error} />
      <Loading loading={loaded.loading && !loaded.data} />
      {loaded.data ? (
        <>
          {loaded.data.declared.length === 0 ? (
            <p class="subtitle">
              The operator declares no feature (<code>interns.features</code> or <code>interns.features_dir</code> in the gateway's config).
            </p>
          ) : (
            <AddFeature internId={internId} available={available} onAdded={loaded.reload} />
          )}
          {mine.length === 0 ? <p>This intern has no feature yet.</p> : null}
          <ul class="connection-cards" aria-label="Features of this intern">
            {mine.map((feature) => (
              <li key={feature.id} class="connection-card" aria-labelledby={`feature-${feature.id}`}>
                <h3 id={`feature-${feature.id}`}>{feature.title ?? feature.id}</h3>
                {feature.description ? <p class="subtitle">{feature.description}</p> : null}
                <dl>
                  <div>
                    <dt>State</dt>
                    <dd>
                      <FeatureStatus feature={feature} />
                    </dd>
                  </div>
                  {feature.status === "undeclared" ? null : (
                    <div>
                      <dt>Connections</dt>
                      <dd>{needs(feature)}</dd>
                    </div>
                  )}
                  <div>
                    <dt>Added</dt>
                    <dd>{formatTime(feature.added_at)}</dd>
                  </div>
                </dl>
                <div class="inline-form">
                  <button type="button" class="danger" aria-label={`Remove ${feature.title ?? feature.id}`} onClick={() => remove(feature)}>
                    Remove
                  </button>
                </div>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
