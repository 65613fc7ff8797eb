import { useEffect, useRef, useState } from "preact/hooks";
import { selectWorkspace, type Session, signOut } from "./api.ts";
import { useWorkspaceNames } from "./components/names.ts";
import type { PageDefinition, Viewer } from "./components/page.ts";
import { PAGES } from "./pages/index.ts";

/** The page and its parameter a hash names (`#/generations/<id>`); the first page when it names none. */
function routeOf(hash: string, pages: PageDefinition[]): { path: string; param: string | undefined } {
  const [path = "", ...rest] = hash.replace(/^#\/?/, "").split("/");
  const known = pages.some((page) => page.path === path);
  return { path: known ? path : pages[0]!.path, param: known && rest.length > 0 ? decodeURIComponent(rest.join("/")) : undefined };
}

function useHashRoute(pages: PageDefinition[]) {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    addEventListener("hashchange", update);
    // A change between the first render and this effect fired no listener yet: read it now.
    update();
    return () => removeEventListener("hashchange", update);
  }, []);
  return routeOf(hash, pages);
}

function principalName(session: Session): string {
  if (session.member) return session.member.email;
  return "Management key";
}

/** The frame of every page: navigation, the signed-in principal, the workspace picker, sign-out. */
export function Shell({ session }: { session: Session }) {
  const [workspace, setWorkspace] = useState(session.workspaces[0]?.id);
  selectWorkspace(workspace);
  const names = useWorkspaceNames(session);
  const viewer: Viewer = { session, workspace, workspaceName: (id) => names.get(id) ?? id };
  const pages = PAGES.filter((item) => !item.visible || item.visible(viewer));
  const route = useHashRoute(pages);
  const page = pages.find((item) => item.path === route.path)!;
  // After a navigation (not the first load) keyboard and screen-reader users land on the new page.
  const first = useRef(true);
  useEffect(() => {
    document.title = `${page.title} · Roundhouse`;
    if (!first.current) document.getElementById("main")?.focus();
    first.current = false;
  }, [page, route.param]);
  const View = page.view;
  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(event) => (event.preventDefault(), document.getElementById("main")?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Roundhouse</span>
        <nav aria-label="Dashboard">
          <ul>
            {pages.map((item) => (
              <li key={item.path}>
                <a href={`#/${item.path}`} aria-current={item.path === page.path ? "page" : undefined}>
                  {item.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {session.workspaces.length > 1 ? (
            <label>
              Workspace{" "}
              <select value={workspace} onChange={(event) => setWorkspace((event.target as HTMLSelectElement).value)}>
                {session.workspaces.map((item) => (
                  <option key={item.id} value={item.id} title={`Workspace ${item.id}`}>
                    {viewer.workspaceName(item.id)} ({item.role})
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span class="workspace" title={session.workspaces[0] ? `Workspace ${session.workspaces[0].id}` : "Workspace"}>
              {session.workspaces[0] ? viewer.workspaceName(session.workspaces[0].id) : "no workspace"}
            </span>
          )}
          <span class="principal" aria-label="Signed in as">
            {principalName(session)}
          </span>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <View key={`${workspace}/${page.path}/${route.param ?? ""}`} param={route.param} viewer={viewer} />
      </main>
    </div>
  );
}
