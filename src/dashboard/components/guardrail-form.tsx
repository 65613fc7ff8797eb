import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNotice } from "./notice.tsx";
import { checkedOf, listOfText, listText, numberOfText, useAction, valueOf } from "./forms.ts";

/** A guardrail as `GET /api/v1/guardrails` lists it. */
export interface Guardrail {
  id: string;
  name: string;
  description: string | null;
  limit_usd: number | null;
  reset_interval: string | null;
  include_byok_in_budgets: boolean;
  allowed_models: string[] | null;
  ignored_models: string[] | null;
  allowed_providers: string[] | null;
  ignored_providers: string[] | null;
  content_filter_builtins: Array<{ slug: string; action: string; label: string; scan_scope?: string }> | null;
  content_filters: Array<{ pattern: string; action: string; label: string | null }> | null;
  [policy: string]: unknown;
}

/** The recognisers the gateway runs, as the API names them. */
const BUILTINS: Array<[string, string]> = [
  ["email", "E-mail addresses"],
  ["phone", "Phone numbers"],
  ["ssn", "Social security numbers"],
  ["credit-card", "Credit card numbers"],
  ["ip-address", "IP addresses"],
  ["person-name", "Person names"],
  ["address", "Postal addresses"],
  ["regex-prompt-injection", "Prompt injection"],
];
const SCOPED = "regex-prompt-injection";

/** A builtin filter's name as the form shows it. */
export function builtinName(slug: string): string {
  return BUILTINS.find(([known]) => known === slug)?.[1] ?? slug;
}

/** The data policy switches, as the API names them. */
const POLICIES: Array<[string, string]> = [
  ["enforce_zdr_anthropic", "Zero data retention: Anthropic models"],
  ["enforce_zdr_openai", "Zero data retention: OpenAI models"],
  ["enforce_zdr_google", "Zero data retention: Google models"],
  ["enforce_zdr_xai", "Zero data retention: xAI models"],
  ["enforce_zdr_other", "Zero data retention: other models"],
  ["enable_paid_model_training", "Allow training by paid models"],
  ["enable_free_model_training", "Allow training by free models"],
  ["enable_free_model_publication", "Allow publication by free models"],
];

const LISTS = [
  ["allowed_models", "Allowed models"],
  ["ignored_models", "Denied models"],
  ["allowed_providers", "Allowed providers"],
  ["ignored_providers", "Denied providers"],
] as const;

type Pattern = { pattern: string; action: string; label: string };

function ActionSelect({ label, value, onChange, off }: { label: string; value: string; onChange: (value: string) => void; off?: boolean }) {
  return (
    <select aria-label={label} value={value} onChange={(event) => onChange(valueOf(event))}>
      {off ? <option value="">Off</option> : null}
      <option value="redact">Redact</option>
      <option value="block">Block</option>
      <option value="flag">Flag</option>
    </select>
  );
}

/** Creates a guardrail, or edits `guardrail`: budget, allow and deny lists, data policy and content filters. */
export function GuardrailForm({ guardrail, onSaved }: { guardrail?: Guardrail; onSaved: () => void }) {
  const [name, setName] = useState(guardrail?.name ?? "");
  const [description, setDescription] = useState(guardrail?.description ?? "");
  const [limit, setLimit] = useState(guardrail?.limit_usd === null || guardrail === undefined ? "" : String(guardrail.limit_usd));
  const [interval, setInterval] = useState(guardrail?.reset_interval ?? "");
  const [byok, setByok] = useState(guardrail?.include_byok_in_budgets ?? false);
  const [lists, setLists] = useState<Record<string, string>>(Object.fromEntries(LISTS.map(([field]) => [field, listText(guardrail?.[field])])));
  const [policies, setPolicies] = useState<Record<string, string>>(Object.fromEntries(POLICIES.map(([field]) => [field, guardrail?.[field] === undefined || guardrail[field] === null ? "" : String(guardrail[field])])));
  const [builtins, setBuiltins] = useState<Record<string, string>>(Object.fromEntries((guardrail?.content_filter_builtins ?? []).map((entry) => [entry.slug, entry.action])));
  const [scope, setScope] = useState(guardrail?.content_filter_builtins?.find((entry) => entry.slug === SCOPED)?.scan_scope ?? "all_messages");
  const [patterns, setPatterns] = useState<Pattern[]>((guardrail?.content_filters ?? []).map((entry) => ({ ...entry, label: entry.label ?? "" })));
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = {
      name,
      description: description.trim() === "" ? null : description,
      limit_usd: numberOfText(limit),
      reset_interval: interval === "" ? null : interval,
      include_byok_in_budgets: byok,
      ...Object.fromEntries(LISTS.map(([field]) => [field, listOfText(lists[field]!)])),
      ...Object.fromEntries(POLICIES.map(([field]) => [field, policies[field] === "" ? null : policies[field] === "true"])),
      content_filter_builtins: BUILTINS.filter(([slug]) => builtins[slug]).map(([slug]) => ({ slug, action: builtins[slug], ...(slug === SCOPED ? { scan_scope: scope } : {}) })),
      content_filters: patterns.map((entry) => ({ pattern: entry.pattern, action: entry.action, label: entry.label.trim() === "" ? null : entry.label })),
    };
    const saved = await action.run(() => (guardrail ? api("PATCH", `/api/v1/guardrails/${encodeURIComponent(guardrail.id)}`, body) : api("POST", "/api/v1/guardrails", body)));
    if (saved) onSaved();
  };
  const setPattern = (index: number, change: Partial<Pattern>) => setPatterns(patterns.map((entry, at) => (at === index ? { ...entry, ...change } : entry)));
  return (
    <form class="stacked-form" onSubmit={submit} aria-label={guardrail ? `Edit ${guardrail.name}` : "New guardrail"}>
      <fieldset>
        <legend>Guardrail</legend>
        <label>
          Name <input value={name} onInput={(event) => setName(valueOf(event))} />
        </label>
        <label>
          Description <input value={description} onInput={(event) => setDescription(valueOf(event))} />
        </label>
      </fieldset>
      <fieldset>
        <legend>Budget</legend>
        <label>
          Budget (USD, empty for none) <input type="number" step="any" value={limit} onInput={(event) => setLimit(valueOf(event))} />
        </label>
        <label>
          Budget resets{" "}
          <select value={interval} onChange={(event) => setInterval(valueOf(event))}>
            <option value="">Never</option>
            <option value="daily">Daily</option>
            <option value="weekly">Weekly</option>
            <option value="monthly">Monthly</option>
          </select>
        </label>
        <label class="check">
          <input type="checkbox" checked={byok} onChange={(event) => setByok(checkedOf(event))} /> Count spend on the workspace's own provider keys
        </label>
      </fieldset>
      <fieldset>
        <legend>Allow and deny lists (one per line, empty for no list)</legend>
        {LISTS.map(([field, label]) => (
          <label key={field}>
            {label} <textarea rows={2} value={lists[field]} onInput={(event) => setLists({ ...lists, [field]: valueOf(event) })} />
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Data policy</legend>
        {POLICIES.map(([field, label]) => (
          <label key={field}>
            {label}{" "}
            <select value={policies[field]} onChange={(event) => setPolicies({ ...policies, [field]: valueOf(event) })}>
              <option value="">Not set</option>
              <option value="true">Yes</option>
              <option value="false">No</option>
            </select>
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Content filters</legend>
        {BUILTINS.map(([slug, label]) => (
          <div class="filter" key={slug}>
            <span aria-hidden="true">{label}</span> <ActionSelect label={label} value={builtins[slug] ?? ""} off onChange={(value) => setBuiltins({ ...builtins, [slug]: value })} />
          </div>
        ))}
        {builtins[SCOPED] ? (
          <label>
            Prompt injection scans{" "}
            <select value={scope} onChange={(event) => setScope(valueOf(event))}>
              <option value="all_messages">Every message</option>
              <option value="user_only">The user's messages only</option>
            </select>
          </label>
        ) : null}
        {patterns.map((entry, index) => (
          <div class="pattern-row" key={index}>
            <label>
              Pattern {index + 1} <input value={entry.pattern} onInput={(event) => setPattern(index, { pattern: valueOf(event) })} />
            </label>
            <ActionSelect label={`Action of pattern ${index + 1}`} value={entry.action} onChange={(value) => setPattern(index, { action: value })} />
            <label>
              Label of pattern {index + 1} <input value={entry.label} onInput={(event) => setPattern(index, { label: valueOf(event) })} />
            </label>
            <button type="button" class="danger" onClick={() => setPatterns(patterns.filter((_, at) => at !== index))}>
              Remove pattern {index + 1}
            </button>
          </div>
        ))}
        <button type="button" onClick={() => setPatterns([...patterns, { pattern: "", action: "redact", label: "" }])}>
          Add a pattern
        </button>
      </fieldset>
      <div class="form-actions">
        <button type="submit">{guardrail ? "Save guardrail" : "Create guardrail"}</button>
        <ErrorNotice error={action.error} />
      </div>
    </form>
  );
}
