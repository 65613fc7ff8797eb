import type { ComponentType } from "preact";
import type { Session } from "../api.ts";

/** Who is looking: the session, the workspace it acts in, and the names of workspaces it may read. */
export interface Viewer {
  session: Session;
  workspace: string | undefined;
  /** A workspace's name when the viewer may read it, else its id. */
  workspaceName: (id: string) => string;
}

/**
 * One page of the dashboard: its hash route (`#/<path>[/<param>]`), its title in the navigation, its
 * view (given the parameter and who is looking), and (when not everyone may use it) who sees it: a page a viewer cannot use is not listed.
 */
export interface PageDefinition {
  path: string;
  title: string;
  view: ComponentType<{ param: string | undefined; viewer: Viewer }>;
  visible?: (viewer: Viewer) => boolean;
}

/** Whether the viewer manages the selected workspace: a deployment admin, or an admin of that workspace. */
export function managesWorkspace({ session, workspace }: Viewer): boolean {
  return session.deployment_admin || session.workspaces.some((item) => item.id === workspace && item.role === "admin");
}
