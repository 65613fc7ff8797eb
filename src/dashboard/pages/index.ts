/** Every page of the dashboard, in navigation order: a new page is its own file plus one line here. */
import type { PageDefinition } from "../components/page.ts";
import { generationsPage } from "./generations.tsx";
import { guardrailsPage } from "./guardrails.tsx";
import { keysPage } from "./keys.tsx";
import { membersPage } from "./members.tsx";
import { observabilityPage } from "./observability.tsx";
import { overviewPage } from "./overview.tsx";
import { workspacesPage } from "./workspaces.tsx";

export const PAGES: PageDefinition[] = [overviewPage, generationsPage, keysPage, guardrailsPage, workspacesPage, membersPage, observabilityPage];
