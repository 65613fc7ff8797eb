import { api } from "../api.ts";
import { formatTime } from "./format.ts";
import { ErrorNotice, Loading } from "./notice.tsx";
import { useApi } from "./use-api.ts";
import { WideRow } from "./wide-row.tsx";

/** An intern's secret as the vault API answers it: its name and hosts, never its value. */
interface Secret {
  name: string;
  hosts: string[] | null;
  updated_at: string;
}

/** The Secrets tab: the intern's own secrets by name (values go into the vault and never come out). */
export function InternSecrets({ internId }: { internId: string }) {
  const secrets = useApi(() => api<{ data: Secret[] }>("GET", `/api/v1/vault/interns/${encodeURIComponent(internId)}/secrets?limit=100`), [internId]);
  const rows = secrets.data?.data ?? [];
  return (
    <section aria-labelledby="secrets-title">
      <h2 id="secrets-title">Secrets of this intern</h2>
      <p class="subtitle">Names only: a secret's value is never shown.</p>
      <ErrorNotice error={secrets.error} />
      <Loading loading={secrets.loading && !secrets.data} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Secrets of this intern, by name</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Sent to</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            <WideRow columns={3} when={secrets.data && rows.length === 0}>
              This intern has no secret of its own
            </WideRow>
            {rows.map((secret) => (
              <tr key={secret.name}>
                <th scope="row">
                  <code>{secret.name}</code>
                </th>
                <td class="hosts">{secret.hosts?.join(", ") ?? "—"}</td>
                <td>{formatTime(secret.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
