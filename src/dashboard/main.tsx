/** The dashboard's entry: signs in when signed out, else renders the shell. */
import { render } from "preact";
import { goToSignIn, loadSession } from "./api.ts";
import { Shell } from "./shell.tsx";

const root = document.getElementById("app")!;

loadSession().then(
  (session) => (session ? render(<Shell session={session} />, root) : goToSignIn()),
  (error: unknown) => {
    root.textContent = `The dashboard could not load its session: ${error instanceof Error ? error.message : String(error)}`;
  },
);
