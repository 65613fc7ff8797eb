import { api } from "../api.ts";
import { formatTime } from "../components/format.ts";
import { CollectionStatus, useCollection } from "../components/collection.tsx";
import { managesWorkspace, type PageDefinition } from "../components/page.ts";
import { PresetDetail } from "../components/preset-detail.tsx";
import type { Preset } from "../components/preset-document.ts";
import { PresetImport } from "../components/preset-import.tsx";

function PresetList() {
  const presets = useCollection<Preset, { data: Preset[]; total_count: number }>(() => api("GET", "/api/v1/presets?limit=100"));
  const total = presets.answer?.total_count ?? 0;
  return (
    <section aria-labelledby="presets-title">
      <header class="page-header">
        <h1 id="presets-title">Presets</h1>
      </header>
      <CollectionStatus collection={presets} />
      {presets.answer && total === 0 ? <p>No presets yet: import one below, or create one with POST /api/v1/presets/&lt;slug&gt;/chat/completions.</p> : null}
      {presets.answer && total > presets.items.length ? <p class="subtitle">Showing {presets.items.length} of {total} presets.</p> : null}
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Presets of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">Slug</th>
              <th scope="col" class="wide-only">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {presets.items.map((preset) => (
              <tr key={preset.id}>
                <th scope="row">
                  <a href={`#/presets/${encodeURIComponent(preset.slug)}`}>{preset.slug}</a>
                </th>
                <td class="wide-only">{preset.name}</td>
                <td>{preset.status}</td>
                <td>{formatTime(preset.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <PresetImport onImported={(slug) => location.assign(`#/presets/${encodeURIComponent(slug)}`)} />
    </section>
  );
}

function Presets({ param }: { param: string | undefined }) {
  return param === undefined ? <PresetList /> : <PresetDetail slug={param} />;
}

/** Presets: the list, one preset's versions with a diff of two, a new version from JSON, export and import. */
export const presetsPage: PageDefinition = { path: "presets", title: "Presets", view: Presets, visible: managesWorkspace };
