import { useState } from "preact/hooks";
import { ErrorNotice } from "./notice.tsx";
import { createVersion, parseImport } from "./preset-document.ts";

/**
 * Imports an exported preset file (or one version's JSON), pasted or picked: each version is stored in
 * order through the API under the chosen slug, so the last becomes the designated one.
 */
export function PresetImport({ onImported }: { onImported: (slug: string) => void }) {
  const [text, setText] = useState("");
  const [slug, setSlug] = useState("");
  const [error, setError] = useState<Error | undefined>(undefined);
  const [progress, setProgress] = useState("");
  const pick = async (event: Event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (!file) return;
    const content = await file.text();
    setText(content);
    try {
      const named = parseImport(content).slug;
      if (named && slug === "") setSlug(named);
      setError(undefined);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      const parsed = parseImport(text);
      const target = slug.trim() || parsed.slug;
      if (!target) throw new Error("slug: give the preset's slug (the pasted JSON names none)");
      for (const [index, content] of parsed.versions.entries()) {
        setProgress(`Importing version ${index + 1} of ${parsed.versions.length}…`);
        await createVersion(target, content);
      }
      setProgress(`Imported ${parsed.versions.length} ${parsed.versions.length === 1 ? "version" : "versions"} into ${target}.`);
      setError(undefined);
      onImported(target);
    } catch (failure) {
      setProgress("");
      setError(failure as Error);
    }
  };
  return (
    <section class="card" aria-labelledby="import-title">
      <h2 id="import-title">Import a preset</h2>
      <form class="stack-form" onSubmit={submit}>
        <label>
          Preset file <input type="file" accept="application/json,.json" onChange={(event) => void pick(event)} />
        </label>
        <label for="import-json">Or paste the exported JSON (or one version's JSON)</label>
        <textarea id="import-json" class="json" rows={8} spellcheck={false} value={text} onInput={(event) => setText((event.target as HTMLTextAreaElement).value)} />
        <label>
          Slug (new or existing preset; empty keeps the file's){" "}
          <input value={slug} maxLength={256} pattern="[A-Za-z0-9._~\-]+" onInput={(event) => setSlug((event.target as HTMLInputElement).value)} />
        </label>
        <div>
          <button type="submit">Import</button>
        </div>
      </form>
      <ErrorNotice error={error} />
      <p role="status">{progress}</p>
    </section>
  );
}
