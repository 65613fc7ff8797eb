import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { formatCost } from "./format.ts";
import { ErrorNotice, Loading } from "./notice.tsx";
import { numberOfText, useAction, valueOf } from "./forms.ts";
import { useApi } from "./use-api.ts";

interface Budget {
  limit_usd: number;
  reset_interval: string | null;
}

/** Widest first, as the strict-decrease rule reads them. */
const INTERVALS: Array<[string, string]> = [
  ["lifetime", "Lifetime"],
  ["monthly", "Monthly"],
  ["weekly", "Weekly"],
  ["daily", "Daily"],
];

/** A workspace's budget per interval: set one (the API refuses limits that do not strictly decrease) or remove it. */
export function WorkspaceBudgets({ workspace }: { workspace: { id: string; name: string } }) {
  const base = `/api/v1/workspaces/${encodeURIComponent(workspace.id)}/budgets`;
  const budgets = useApi(() => api<{ data: Budget[] }>("GET", base), [workspace.id]);
  const [interval, setInterval] = useState("monthly");
  const [limit, setLimit] = useState("");
  const action = useAction();
  const current = (name: string) => budgets.data?.data.find((row) => (row.reset_interval ?? "lifetime") === name);
  const save = async (event: Event) => {
    event.preventDefault();
    if (await action.run(() => api("PUT", `${base}/${interval}`, { limit_usd: numberOfText(limit) }))) (setLimit(""), budgets.reload());
  };
  const remove = (name: string) => void action.run(() => api("DELETE", `${base}/${name}`)).then(budgets.reload);
  return (
    <section class="card" aria-label={`Budgets of ${workspace.name}`}>
      <h2>Budgets of {workspace.name}</h2>
      <p class="subtitle">Pooled over every key of the workspace. Limits strictly decrease as the interval narrows: lifetime, monthly, weekly, daily.</p>
      <ErrorNotice error={budgets.error} />
      <Loading loading={budgets.loading && !budgets.data} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Budgets of {workspace.name}</caption>
          <thead>
            <tr>
              <th scope="col">Interval</th>
              <th scope="col">Limit</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {INTERVALS.map(([name, label]) => {
              const budget = current(name);
              return (
                <tr key={name}>
                  <th scope="row">{label}</th>
                  <td>{budget ? formatCost(budget.limit_usd) : "none"}</td>
                  <td class="actions">
                    {budget ? (
                      <button type="button" class="danger" aria-label={`Remove the ${name} budget`} onClick={() => remove(name)}>
                        Remove
                      </button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <form class="inline-form" onSubmit={save} aria-label="Set a budget">
        <label>
          Budget interval{" "}
          <select value={interval} onChange={(event) => setInterval(valueOf(event))}>
            {INTERVALS.map(([name, label]) => (
              <option key={name} value={name}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Budget limit (USD) <input type="number" step="any" value={limit} onInput={(event) => setLimit(valueOf(event))} />
        </label>
        <button type="submit">Set budget</button>
      </form>
      <ErrorNotice error={action.error} />
    </section>
  );
}
