import { api } from "../api.ts";
import { formatTime } from "./format.ts";
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
  return { cards: usable.data.map(({ key }) => ({ key, connection: byKey.get(key) })), workspaceCount: all.data.length };
}

/**
 * The Connections tab: a card for exactly each connection the vault API lists for the intern (stored,
 * enabled, not turned off or hidden for it), with its state and last test result; never a credential.
 */
export function InternConnections({ internId }: { internId: string }) {
  const loaded = useApi(() => load(internId), [internId]);
  const cards = loaded.data?.cards ?? [];
  const others = loaded.data ? loaded.data.workspaceCount - cards.length : 0;
  return (
    <section aria-labelledby="connections-title">
      <h2 id="connections-title">Connections this intern can use</h2>
      <ErrorNotice error={loaded.error} />
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
                  <span class="badge">shown to this intern</span>
                </dd>
              </div>
              <div>
                <dt>Last test</dt>
                <dd>
                  <LastTest test={connection?.last_test ?? null} />
                </dd>
              </div>
            </dl>
          </li>
        ))}
      </ul>
      {others > 0 ? (
        <p class="subtitle">
          {others} other {others === 1 ? "connection" : "connections"} of the workspace {others === 1 ? "is" : "are"} disabled, turned off or hidden for this intern.
        </p>
      ) : null}
    </section>
  );
}
