import { useState } from "preact/hooks";
import { canonicalJson, diffLines } from "./line-diff.ts";
import { contentOf, type PresetVersion } from "./preset-document.ts";

const MARKS = { same: " ", added: "+", removed: "−" } as const;
const WORDS = { same: "unchanged: ", added: "added: ", removed: "removed: " } as const;

function VersionPicker({ label, versions, value, onChange }: { label: string; versions: PresetVersion[]; value: number; onChange: (version: number) => void }) {
  const id = `diff-${label.split(" ")[0]!.toLowerCase()}`;
  return (
    <span class="field">
      <label for={id}>{label}</label>
      <select id={id} value={String(value)} onChange={(event) => onChange(Number((event.target as HTMLSelectElement).value))}>
        {versions.map((version) => (
          <option key={version.id} value={String(version.version)}>
            Version {version.version}
          </option>
        ))}
      </select>
    </span>
  );
}

/**
 * The line diff of two chosen versions' canonical JSON (keys sorted): each added or removed line carries
 * a visible `+`/`−` and, for screen readers, the word.
 */
export function VersionDiff({ versions }: { versions: PresetVersion[] }) {
  const latest = versions[versions.length - 1]!.version;
  const [from, setFrom] = useState(versions.length > 1 ? versions[versions.length - 2]!.version : latest);
  const [to, setTo] = useState(latest);
  const before = versions.find((version) => version.version === from) ?? versions[0]!;
  const after = versions.find((version) => version.version === to) ?? versions[versions.length - 1]!;
  const lines = diffLines(canonicalJson(contentOf(before)), canonicalJson(contentOf(after)));
  const added = lines.filter((line) => line.kind === "added").length;
  const removed = lines.filter((line) => line.kind === "removed").length;
  return (
    <section class="card" aria-labelledby="diff-title">
      <h2 id="diff-title">Compare versions</h2>
      <div class="inline-form">
        <VersionPicker label="From version" versions={versions} value={before.version} onChange={setFrom} />
        <VersionPicker label="To version" versions={versions} value={after.version} onChange={setTo} />
      </div>
      <p role="status" class="diff-summary">
        {added === 0 && removed === 0
          ? `Version ${before.version} and version ${after.version} are the same.`
          : `${added} ${added === 1 ? "line" : "lines"} added, ${removed} removed from version ${before.version} to version ${after.version}.`}
      </p>
      <ol class="diff" aria-label={`Changes from version ${before.version} to version ${after.version}`}>
        {lines.map((line, index) => (
          <li key={index} class={`diff-${line.kind}`}>
            <span class="diff-mark" aria-hidden="true">
              {MARKS[line.kind]}
            </span>
            <span class="visually-hidden">{WORDS[line.kind]}</span>
            <code>{line.text}</code>
          </li>
        ))}
      </ol>
    </section>
  );
}
