/** Every page of the dashboard, in navigation order: a new page is its own file plus one line here. */
import type { PageDefinition } from "../components/page.ts";
import { generationsPage } from "./generations.tsx";
import { guardrailsPage } from "./guardrails.tsx";
import { internsPage } from "./interns.tsx";
import { keysPage } from "./keys.tsx";
import { membersPage } from "./members.tsx";
import { observabilityPage } from "./observability.tsx";
import { overviewPage } from "./overview.tsx";
import { playgroundPage } from "./playground.tsx";
import { presetsPage } from "./presets.tsx";
import { providersPage } from "./providers.tsx";
import { workspacesPage } from "./workspaces.tsx";

export const PAGES: PageDefinition[] = [
  overviewPage,
  generationsPage,
  keysPage,
  presetsPage,
  internsPage,
  providersPage,
  playgroundPage,
  guardrailsPage,
  workspacesPage,
  membersPage,
  observabilityPage,
];
