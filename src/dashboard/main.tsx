/** The dashboard's entry: signs in when signed out, else renders the shell. */
import { render } from "preact";
import { goToSignIn, loadSession } from "./api.ts";
import { Shell } from "./shell.tsx";

const root = document.getElementById("app")!;

loadSession().then(
  (session) => {
    if (!session) return goToSignIn();
    root.textContent = "";
    render(<Shell session={session} />, root);
  },
  (error: unknown) => {
    root.textContent = `The dashboard could not load its session: ${error instanceof Error ? error.message : String(error)}`;
  },
);
