import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNotice } from "./notice.tsx";

/** A key as `GET /api/v1/keys` lists it. */
export interface ApiKey {
  hash: string;
  name: string;
  label: string;
  kind: string;
  disabled: boolean;
  limit: number | null;
  limit_remaining: number | null;
  limit_reset: string | null;
  usage: number;
  created_at: string;
  expires_at: string | null;
}

/** The spending limit of a key and when it resets, edited in place. */
export function KeyLimits({ apiKey, onSaved }: { apiKey: ApiKey; onSaved: () => void }) {
  const [limit, setLimit] = useState(apiKey.limit === null ? "" : String(apiKey.limit));
  const [reset, setReset] = useState(apiKey.limit_reset ?? "");
  const [error, setError] = useState<Error | undefined>(undefined);
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await api("PATCH", `/api/v1/keys/${encodeURIComponent(apiKey.hash)}`, { limit: limit.trim() === "" ? null : Number(limit), limit_reset: reset === "" ? null : reset });
      onSaved();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <form class="inline-form" onSubmit={save} aria-label={`Limits of ${apiKey.name}`}>
      <label>
        Spending limit (USD, empty for none) <input type="number" min={0} step="any" value={limit} onInput={(event) => setLimit((event.target as HTMLInputElement).value)} />
      </label>
      <label>
        Resets{" "}
        <select value={reset} onChange={(event) => setReset((event.target as HTMLSelectElement).value)}>
          <option value="">Never</option>
          <option value="daily">Daily</option>
          <option value="weekly">Weekly</option>
          <option value="monthly">Monthly</option>
        </select>
      </label>
      <button type="submit">Save limits</button>
      <ErrorNotice error={error} />
    </form>
  );
}
