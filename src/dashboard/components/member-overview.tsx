/** A plain member's Overview: the spend of the keys it created (workspace analytics are its admins'). */
import { api } from "../api.ts";
import { formatCost, formatTime } from "./format.ts";
import type { ApiKey } from "./key-limits.tsx";
import { ErrorNotice, Loading } from "./notice.tsx";
import { useApi } from "./use-api.ts";
import { WideRow } from "./wide-row.tsx";

export function MemberOverview() {
  const keys = useApi(() => api<{ data: ApiKey[] }>("GET", "/api/v1/keys?include_disabled=true"), []);
  const rows = keys.data?.data ?? [];
  const spent = rows.reduce((sum, key) => sum + key.usage, 0);
  return (
    <section aria-labelledby="overview-title">
      <header class="page-header">
        <h1 id="overview-title">Overview</h1>
      </header>
      <p class="subtitle">The workspace's charts are for its admins. Here is what the keys you created have spent; look up one of their requests under Generations.</p>
      <ErrorNotice error={keys.error} />
      <Loading loading={keys.loading && !keys.data} />
      {keys.data ? (
        <p role="status">
          {rows.length === 1 ? "Your key has" : `Your ${rows.length} keys have`} spent {formatCost(spent)} in total.
        </p>
      ) : null}
      <div class="table-wrap">
        <table>
          <caption>Spend of your keys</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Spent</th>
              <th scope="col">Limit</th>
              <th scope="col" class="wide-only">Created</th>
            </tr>
          </thead>
          <tbody>
            <WideRow columns={4} when={keys.data && rows.length === 0}>
              You have no keys in this workspace
            </WideRow>
            {rows.map((key) => (
              <tr key={key.hash} class={key.disabled ? "disabled" : ""}>
                <th scope="row">
                  {key.name} {key.disabled ? <span class="badge">disabled</span> : null}
                </th>
                <td>{formatCost(key.usage)}</td>
                <td>{key.limit === null ? "none" : `${formatCost(key.limit)}${key.limit_reset ? ` ${key.limit_reset}` : ""} (${formatCost(key.limit_remaining)} left)`}</td>
                <td class="wide-only">{formatTime(key.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
