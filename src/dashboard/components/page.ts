import type { ComponentType } from "preact";

/** One page of the dashboard: its hash route (`#/<path>[/<param>]`), its title in the navigation, and its view. */
export interface PageDefinition {
  path: string;
  title: string;
  view: ComponentType<{ param: string | undefined }>;
}
