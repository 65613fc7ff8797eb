import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { type FilterRules, FilterRulesEditor, rulesToSend } from "./filter-rules.tsx";
import type { ApiKey } from "./key-limits.tsx";
import { ErrorNotice } from "./notice.tsx";
import { useApi } from "./use-api.ts";
import { checkedOf, numberOfText, useAction, valueOf } from "./forms.ts";

/** A destination as `GET /api/v1/observability/destinations` lists it (its secrets masked). */
export interface Destination {
  id: string;
  type: string;
  name: string | null;
  config: Record<string, unknown>;
  enabled: boolean;
  privacy_mode: boolean;
  sampling_rate: number;
  filter_rules: FilterRules | null;
  api_key_hashes: string[] | null;
  broadcast_generation_cost: boolean;
  broadcast_generation_identity: boolean;
  broadcast_generation_request_context: boolean;
}

/** The settings each type takes, as the API names them; `secret` ones are shown masked. */
const SETTINGS: Record<string, Array<{ key: string; label: string; secret?: boolean }>> = {
  "otel-collector": [
    { key: "endpoint", label: "OTLP endpoint URL" },
    { key: "encoding", label: "Encoding (json or protobuf)" },
  ],
  langfuse: [
    { key: "baseUrl", label: "Langfuse URL" },
    { key: "publicKey", label: "Public key" },
    { key: "secretKey", label: "Secret key", secret: true },
    { key: "encoding", label: "Encoding (json or protobuf)" },
  ],
  webhook: [
    { key: "url", label: "Webhook URL" },
    { key: "method", label: "Method (POST or PUT)" },
  ],
};
const TYPES: Array<[string, string]> = [
  ["otel-collector", "OpenTelemetry collector (OTLP)"],
  ["langfuse", "Langfuse"],
  ["webhook", "Webhook"],
];
const SWITCHES = [
  ["enabled", "Enabled"],
  ["privacy_mode", "Privacy mode (metadata only)"],
  ["broadcast_generation_cost", "Send cost"],
  ["broadcast_generation_identity", "Send user and session"],
  ["broadcast_generation_request_context", "Send request context"],
] as const;

function headersText(headers: unknown): string {
  return Object.entries((headers ?? {}) as Record<string, string>)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");
}

function headersOf(text: string): Record<string, string> {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return Object.fromEntries(lines.map((line) => [line.split(":")[0]!.trim(), line.includes(":") ? line.slice(line.indexOf(":") + 1).trim() : ""]));
}

/** Which of the workspace's keys a destination exports the generations of (none chosen: every key). */
function KeyChoice({ chosen, onChange }: { chosen: string[]; onChange: (chosen: string[]) => void }) {
  const keys = useApi(() => api<{ data: ApiKey[] }>("GET", "/api/v1/keys"), []);
  return (
    <fieldset>
      <legend>Keys (none chosen: every key of the workspace)</legend>
      <ErrorNotice error={keys.error} />
      {(keys.data?.data ?? []).map((key) => (
        <label key={key.hash} class="check">
          <input type="checkbox" checked={chosen.includes(key.hash)} onChange={(event) => onChange(checkedOf(event) ? [...chosen, key.hash] : chosen.filter((hash) => hash !== key.hash))} /> {key.name} <code>{key.label}</code>
        </label>
      ))}
    </fieldset>
  );
}

/** Creates a destination, or edits `destination` (a masked secret sent back keeps the stored one). */
export function DestinationForm({ destination, onSaved }: { destination?: Destination; onSaved: () => void }) {
  const [type, setType] = useState(destination?.type ?? "otel-collector");
  const [name, setName] = useState(destination?.name ?? "");
  const [config, setConfig] = useState<Record<string, string>>(Object.fromEntries(Object.entries(destination?.config ?? {}).filter(([key]) => key !== "headers").map(([key, value]) => [key, String(value)])));
  const [headers, setHeaders] = useState(headersText(destination?.config.headers));
  const [sampling, setSampling] = useState(String(destination?.sampling_rate ?? 1));
  const [switches, setSwitches] = useState<Record<string, boolean>>(Object.fromEntries(SWITCHES.map(([field]) => [field, destination ? destination[field] : field === "enabled"])));
  const [rules, setRules] = useState<FilterRules>(destination?.filter_rules ?? { enabled: true, groups: [] });
  const [keys, setKeys] = useState<string[]>(destination?.api_key_hashes ?? []);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const settings = Object.fromEntries((SETTINGS[type] ?? []).filter(({ key }) => (config[key] ?? "") !== "").map(({ key }) => [key, config[key]]));
    const body = {
      name,
      config: { ...settings, headers: headersOf(headers) },
      sampling_rate: numberOfText(sampling) ?? undefined,
      filter_rules: rulesToSend(rules),
      api_key_hashes: keys.length > 0 ? keys : null,
      ...switches,
    };
    const path = "/api/v1/observability/destinations";
    const saved = await action.run(() => (destination ? api("PATCH", `${path}/${encodeURIComponent(destination.id)}`, body) : api("POST", path, { type, ...body })));
    if (saved) onSaved();
  };
  return (
    <form class="stacked-form" onSubmit={submit} aria-label={destination ? `Edit ${destination.name ?? destination.id}` : "New destination"}>
      <fieldset>
        <legend>Destination</legend>
        <label>
          Type{" "}
          <select value={type} disabled={destination !== undefined} onChange={(event) => setType(valueOf(event))}>
            {TYPES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name <input value={name} onInput={(event) => setName(valueOf(event))} />
        </label>
        {(SETTINGS[type] ?? []).map(({ key, label, secret }) => (
          <label key={`${type}-${key}`}>
            {label}{" "}
            {secret ? (
              <input type="password" autoComplete="off" value={config[key] ?? ""} onInput={(event) => setConfig({ ...config, [key]: valueOf(event) })} />
            ) : (
              <input value={config[key] ?? ""} onInput={(event) => setConfig({ ...config, [key]: valueOf(event) })} />
            )}
          </label>
        ))}
        <label>
          Headers (one "Name: value" per line; sent sealed, shown masked) <textarea rows={2} value={headers} onInput={(event) => setHeaders(valueOf(event))} />
        </label>
        <label>
          Sampling rate (0 to 1) <input type="number" step="any" value={sampling} onInput={(event) => setSampling(valueOf(event))} />
        </label>
        {SWITCHES.map(([field, label]) => (
          <label key={field} class="check">
            <input type="checkbox" checked={switches[field]} onChange={(event) => setSwitches({ ...switches, [field]: checkedOf(event) })} /> {label}
          </label>
        ))}
      </fieldset>
      <FilterRulesEditor rules={rules} onChange={setRules} />
      <KeyChoice chosen={keys} onChange={setKeys} />
      <div class="form-actions">
        <button type="submit">{destination ? "Save destination" : "Create destination"}</button>
        <ErrorNotice error={action.error} />
      </div>
    </form>
  );
}
