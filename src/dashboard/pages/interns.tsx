import { useState } from "preact/hooks";
import { ApiError, api, currentWorkspace } from "../api.ts";
import { formatTime } from "../components/format.ts";
import { InternConnections } from "../components/intern-connections.tsx";
import { InternFeatures } from "../components/intern-features.tsx";
import { InternSecrets } from "../components/intern-secrets.tsx";
import { ErrorNotice, Loading } from "../components/notice.tsx";
import { managesWorkspace, type PageDefinition } from "../components/page.ts";
import { Tabs } from "../components/tabs.tsx";
import { useApi } from "../components/use-api.ts";
import { WideRow } from "../components/wide-row.tsx";

/** An intern as `GET /interns` answers it. */
interface Intern {
  id: string;
  name: string;
  status: string;
  description: string | null;
  model: string | null;
  created_at: string;
}

interface InternPage {
  data: Intern[];
  has_more: boolean;
  next_cursor?: string;
}

/**
 * The interns of the selected workspace, or undefined outside the Intern API programme: the workspace
 * record says so first (no refused call), and the interns API's 404 says it too.
 */
async function loadInterns(cursor: string | undefined): Promise<InternPage | undefined> {
  const workspace = currentWorkspace();
  if (workspace) {
    const answer = await api<{ data: { intern_api_access: boolean } }>("GET", `/api/v1/workspaces/${encodeURIComponent(workspace)}`);
    if (!answer.data.intern_api_access) return undefined;
  }
  try {
    return await api<InternPage>("GET", `/api/v1/interns?limit=50${cursor ? `&starting_after=${encodeURIComponent(cursor)}` : ""}`);
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 404) return undefined;
    throw failure;
  }
}

function OutsideProgramme() {
  return (
    <p class="notice info" role="status">
      This workspace is not in the Intern API programme, so it has no interns or vault here. An administrator of the workspace can admit it by turning on the
      workspace's <code>intern_api_access</code> setting.
    </p>
  );
}

function InternList() {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const list = useApi(() => loadInterns(cursor), [cursor]);
  const outside = !list.loading && !list.error && list.data === undefined;
  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="interns-title">
      <header class="page-header">
        <h1 id="interns-title">Interns</h1>
      </header>
      <ErrorNotice error={list.error} />
      <Loading loading={list.loading && !list.data} />
      {outside ? <OutsideProgramme /> : null}
      {list.data ? (
        <>
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Interns of this workspace</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Model</th>
                  <th scope="col" class="wide-only">
                    Created
                  </th>
                </tr>
              </thead>
              <tbody>
                <WideRow columns={4} when={rows.length === 0}>
                  This workspace has no intern yet
                </WideRow>
                {rows.map((intern) => (
                  <tr key={intern.id}>
                    <th scope="row">
                      <a href={`#/interns/${encodeURIComponent(intern.id)}`}>{intern.name}</a>
                    </th>
                    <td>{intern.status}</td>
                    <td>{intern.model ?? "—"}</td>
                    <td class="wide-only">{formatTime(intern.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pager" aria-label="Pages of interns">
            <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous
            </button>
            <button type="button" disabled={!list.data.next_cursor} onClick={() => list.data?.next_cursor && setCursors([...cursors, list.data.next_cursor])}>
              Next
            </button>
          </nav>
        </>
      ) : null}
    </section>
  );
}

function InternDetail({ id }: { id: string }) {
  const intern = useApi(() => api<Intern>("GET", `/api/v1/interns/${encodeURIComponent(id)}`), [id]);
  const name = intern.data?.name ?? "Intern";
  return (
    <section aria-labelledby="intern-title">
      <header class="page-header">
        <div>
          <a href="#/interns">All interns</a>
          <h1 id="intern-title">{name}</h1>
          {intern.data ? (
            <p class="subtitle">
              {intern.data.status}
              {intern.data.model ? ` · ${intern.data.model}` : ""}
              {intern.data.description ? ` · ${intern.data.description}` : ""}
            </p>
          ) : null}
        </div>
      </header>
      {intern.error instanceof ApiError && intern.error.status === 404 ? (
        <p class="notice info" role="status">
          No such intern in this workspace (or the workspace is not in the Intern API programme).
        </p>
      ) : (
        <ErrorNotice error={intern.error} />
      )}
      <Loading loading={intern.loading && !intern.data} />
      {intern.data ? (
        <Tabs
          label={`${name}'s vault and features`}
          tabs={[
            { id: "connections", label: "Connections", panel: () => <InternConnections internId={id} /> },
            { id: "secrets", label: "Secrets", panel: () => <InternSecrets internId={id} /> },
            { id: "features", label: "Features", panel: () => <InternFeatures internId={id} internName={name} /> },
          ]}
        />
      ) : null}
    </section>
  );
}

function Interns({ param }: { param: string | undefined }) {
  return param ? <InternDetail id={param} /> : <InternList />;
}

/** The workspace's interns (Intern API programme only); `#/interns/<id>` shows one with its Connections, Secrets and Features tabs. */
export const internsPage: PageDefinition = { path: "interns", title: "Interns", view: Interns, visible: managesWorkspace };
