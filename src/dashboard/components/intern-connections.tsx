import { api } from "../api.ts";
import { formatTime } from "./format.ts";
import { type InternSetting, type SettingsControl, useSettingsControl } from "./intern-connection-settings.tsx";
import { OtherConnections } from "./intern-other-connections.tsx";
import { ErrorNotice, Loading } from "./notice.tsx";
import { useApi } from "./use-api.ts";

/** A workspace connection as `GET /vault/connections` answers it (credentials never leave the gateway). */
interface Connection {
  key: string;
  enabled: boolean;
  last_test: { ok: boolean | null; message: string | null; tested_at: string } | null;
}

const NAMED: Record<string, string> = { github: "GitHub", slack: "Slack", google: "Google" };

/** What kind of connection a key names: GitHub, Slack, Google, a custom MCP server or a catalog one. */
function kindOf(key: string): string {
  if (NAMED[key]) return NAMED[key];
  if (key.startsWith("mcp:")) return `Custom MCP server at ${key.slice(4)}`;
  return "MCP server from the catalog";
}

function LastTest({ test }: { test: Connection["last_test"] }) {
  if (!test) return <span class="test-result">Never tested</span>;
  return (
    <span class={`test-result ${test.ok ? "passed" : "failed"}`}>
      {test.ok ? "Passed" : "Failed"} {formatTime(test.tested_at)}
      {test.message ? `: ${test.message}` : ""}
    </span>
  );
}

async function load(internId: string) {
  const [usable, all] = await Promise.all([
    api<{ data: Array<{ key: string }> }>("GET", `/api/v1/vault/interns/${encodeURIComponent(internId)}/connections`),
    api<{ data: Connection[] }>("GET", "/api/v1/vault/connections"),
  ]);
  const byKey = new Map(all.data.map((connection) => [connection.key, connection]));
  const keys = new Set(usable.data.map(({ key }) => key));
  // Why each other enabled connection is not usable: turned off, hidden, or both, for this intern.
  const others = await Promise.all(
    all.data
      .filter((connection) => !keys.has(connection.key))
      .map(async ({ key, enabled }) => {
        if (!enabled) return { key, enabled };
        const path = `/api/v1/vault/interns/${encodeURIComponent(internId)}/connections/${encodeURIComponent(key)}`;
        return { key, enabled, setting: (await api<{ data: InternSetting }>("GET", path)).data };
      }),
  );
  return { cards: usable.data.map(({ key }) => ({ key, connection: byKey.get(key) })), others };
}

/** A card's controls: turn the connection off for this intern, or hide it from it (either takes it off the cards). */
function CardControls({ connectionKey: key, control }: { connectionKey: string; control: SettingsControl }) {
  const disabled = control.busy !== undefined;
  return (
    <div class="inline-form">
      <button type="button" aria-label={`Turn off ${key} for this intern`} disabled={disabled} onClick={() => control.change(key, { turned_off: true })}>
        Turn off
      </button>
      <button type="button" aria-label={`Hide ${key} from this intern`} disabled={disabled} onClick={() => control.change(key, { hidden: true })}>
        Hide
      </button>
    </div>
  );
}

/**
 * The Connections tab: a card for exactly each connection the vault API lists for the intern (stored,
 * enabled, not turned off or hidden for it), with its state, last test result and controls to turn it
 * off for the intern or hide it; under them the workspace's other connections, with a way back; never
 * a credential.
 */
export function InternConnections({ internId }: { internId: string }) {
  const loaded = useApi(() => load(internId), [internId]);
  const control = useSettingsControl(internId, loaded.reload);
  const cards = loaded.data?.cards ?? [];
  return (
    <section aria-labelledby="connections-title">
      <h2 id="connections-title">Connections this intern can use</h2>
      <ErrorNotice error={loaded.error ?? control.action.error} />
      {control.message ? (
        <p class="notice info" role="status" tabIndex={-1} ref={control.messageRef}>
          {control.message}
        </p>
      ) : null}
      <Loading loading={loaded.loading && !loaded.data} />
      {loaded.data && cards.length === 0 ? <p>This intern can use no connection.</p> : null}
      <ul class="connection-cards" aria-label="Connections">
        {cards.map(({ key, connection }) => (
          <li key={key} class="connection-card" aria-labelledby={`connection-${key}`}>
            <h3 id={`connection-${key}`}>{key}</h3>
            <p class="subtitle">{kindOf(key)}</p>
            <dl>
              <div>
                <dt>State</dt>
                <dd>
                  <span class="badge">{connection?.enabled === false ? "disabled" : "enabled"}</span>{" "}
                  <span class="badge">on for this intern</span> <span class="badge">shown to this intern</span>
                </dd>
              </div>
              <div>
                <dt>Last test</dt>
                <dd>
                  <LastTest test={connection?.last_test ?? null} />
                </dd>
              </div>
            </dl>
            <CardControls connectionKey={key} control={control} />
          </li>
        ))}
      </ul>
      {loaded.data ? <OtherConnections others={loaded.data.others} control={control} /> : null}
    </section>
  );
}
