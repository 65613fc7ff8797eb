import { useState } from "preact/hooks";

/** Copies `text` to the clipboard; says so (or that it could not) in a live region. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<"" | "Copied" | "Copy failed: select the text and copy it">("");
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setState("Copied"),
      () => setState("Copy failed: select the text and copy it"),
    );
  return (
    <span class="copy">
      <button type="button" onClick={copy} aria-label={label}>
        Copy
      </button>
      <span role="status">{state}</span>
    </span>
  );
}
