/**
 * Headless Chromium for browser tests: Debian's `chromium` package driven by playwright-core (no
 * browser download). `.ci/run` installs the package when it is missing.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

/** Launches headless Chromium; a clear error when the package is absent. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error("Chromium is not installed: apt-get install -y chromium (the .ci/run script does it)");
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}
