import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { formatTime } from "./format.ts";
import { canonicalJson } from "./line-diff.ts";
import { ErrorNotice, Loading } from "./notice.tsx";
import { allVersions, contentOf, createVersion, exportDocument, parseContent, type Preset, presetPath, type PresetVersion } from "./preset-document.ts";
import { useApi } from "./use-api.ts";
import { VersionDiff } from "./version-diff.tsx";

/** A textarea of a version's JSON, stored as the preset's new designated version. */
function NewVersion({ slug, latest, onCreated }: { slug: string; latest: PresetVersion | undefined; onCreated: () => void }) {
  const [text, setText] = useState(latest ? canonicalJson(contentOf(latest)) : '{\n  "config": {},\n  "system_prompt": null\n}');
  const [error, setError] = useState<Error | undefined>(undefined);
  const [created, setCreated] = useState("");
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      const content = parseContent(text);
      const version = await createVersion(slug, content);
      setText(canonicalJson(content));
      setError(undefined);
      setCreated(`Version ${version.version} created.`);
      onCreated();
    } catch (failure) {
      setCreated("");
      setError(failure as Error);
    }
  };
  return (
    <section class="card" aria-labelledby="new-version-title">
      <h2 id="new-version-title">New version</h2>
      <form class="stack-form" onSubmit={submit}>
        <label for="new-version-json">
          Version JSON: <code>config</code> (model, sampling, tools, ...) and <code>system_prompt</code>
        </label>
        <textarea id="new-version-json" class="json" rows={14} spellcheck={false} value={text} onInput={(event) => setText((event.target as HTMLTextAreaElement).value)} />
        <div>
          <button type="submit">Create version</button>
        </div>
      </form>
      <ErrorNotice error={error} />
      <p role="status">{created}</p>
    </section>
  );
}

/** A link that downloads the preset with every version as a JSON file. */
function ExportLink({ preset, versions }: { preset: Preset; versions: PresetVersion[] }) {
  const json = `${JSON.stringify(exportDocument(preset, versions), null, 2)}\n`;
  return (
    <a class="button-link" href={`data:application/json;charset=utf-8,${encodeURIComponent(json)}`} download={`${preset.slug}.preset.json`}>
      Export as JSON
    </a>
  );
}

/** One preset: its facts, its versions (newest first), the diff of two of them, a new version, export. */
export function PresetDetail({ slug }: { slug: string }) {
  const preset = useApi(() => api<{ data: Preset }>("GET", presetPath(slug)), [slug]);
  const versions = useApi(() => allVersions(slug), [slug]);
  const list = versions.data ?? [];
  const latest = list[list.length - 1];
  const reload = () => (preset.reload(), versions.reload());
  return (
    <section aria-labelledby="preset-title">
      <header class="page-header">
        <div>
          <p>
            <a href="#/presets">All presets</a>
          </p>
          <h1 id="preset-title">Preset {slug}</h1>
          {preset.data?.data.description ? <p class="subtitle">{preset.data.data.description}</p> : null}
        </div>
        {preset.data && versions.data ? <ExportLink preset={preset.data.data} versions={list} /> : null}
      </header>
      <ErrorNotice error={preset.error ?? versions.error} />
      <Loading loading={versions.loading && !versions.data} />
      {versions.data ? (
        <>
          <h2>Versions</h2>
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Versions of this preset, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Model</th>
                  <th scope="col">Created</th>
                  <th scope="col" class="wide-only">Creator</th>
                </tr>
              </thead>
              <tbody>
                {[...list].reverse().map((version) => (
                  <tr key={version.id}>
                    <th scope="row">
                      Version {version.version} {version.id === preset.data?.data.designated_version_id ? <span class="badge">designated</span> : null}
                    </th>
                    <td>{typeof version.config.model === "string" ? version.config.model : "—"}</td>
                    <td>{formatTime(version.created_at)}</td>
                    <td class="wide-only" title={version.creator_id}>
                      <code>{version.creator_id.slice(0, 12)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.length > 0 ? <VersionDiff key={list.length} versions={list} /> : null}
          <NewVersion slug={slug} latest={latest} onCreated={reload} />
        </>
      ) : null}
    </section>
  );
}
