/**
 * Makes docs/dashboard-overview.png, the README's picture of the dashboard: a gateway in front of the
 * local fake upstreams of the tests, some traffic (several models, a failover, a few upstream errors),
 * then the Overview at 1280 px in headless Chromium, signed in with the admin key. Real requests all
 * land in the current hour, so the records the gateway made of them are also replayed into the 23
 * hours before (a deterministic day-shaped share per hour), for a day's worth of charts.
 *
 *   npm run screenshot            (bun test/dashboard-screenshot.ts [output.png])
 *
 * Nothing leaves the machine: the upstreams are local servers and the browser refuses other hosts.
 */
import { statSync } from "node:fs";
import { launchChromium } from "./helpers/chromium.ts";
import { signInWithKey, watchedPage } from "./helpers/dashboard.ts";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { startInference } from "./helpers/inference-setup.ts";

const OUTPUT = process.argv[2] ?? new URL("../docs/dashboard-overview.png", import.meta.url).pathname;

/** Models with readable names on the two local upstreams; the last fails over from the first to the second. */
const MODELS = `  - id: acme/chat-small
    endpoints:
      - provider: local-openai
        model: small-upstream
        pricing: { prompt: 0.15, completion: 0.6 }
  - id: acme/chat-large
    endpoints:
      - provider: local-anthropic
        model: large-upstream
        pricing: { prompt: 3, completion: 15 }
  - id: acme/router
    endpoints:
      - provider: local-openai
        model: small-upstream
        pricing: { prompt: 1, completion: 2 }
      - provider: local-anthropic
        model: large-upstream
        pricing: { prompt: 3, completion: 15 }
`;

/** A fixed mix of traffic: [model, prompt tokens, completion tokens, upstream delay in ms]. */
const TRAFFIC: Array<[string, number, number, number]> = [];
for (let index = 0; index < 24; index++) TRAFFIC.push(["acme/chat-small", 300 + index * 40, 80 + index * 10, 20 + (index % 5) * 15]);
for (let index = 0; index < 9; index++) TRAFFIC.push(["acme/chat-large", 1200 + index * 150, 400 + index * 30, 60 + (index % 3) * 40]);

const setup = await startInference({ extra: MODELS });
const HOUR = 3600_000;
let replayed = 0;

/** Copies of the records of `ids` in each of the 23 hours before this one: fewer at night, more by day. */
async function replayIntoTheDayBefore(ids: string[]): Promise<void> {
  const { generations } = setup.gateway.services;
  await generations.flush();
  const keys = (await (await setup.admin("GET", "/keys")).json()) as { data: Array<{ workspace_id: string }> };
  const rows = (await Promise.all(ids.map((id) => generations.get(keys.data[0]!.workspace_id, id)))).filter((row) => row !== undefined);
  const now = Date.now();
  for (let hour = 1; hour < 24; hour++) {
    const at = now - hour * HOUR;
    const daylight = Math.max(0, Math.sin(((new Date(at).getUTCHours() - 6) / 24) * 2 * Math.PI));
    const count = Math.round(rows.length * (0.15 + 0.85 * daylight) * (0.8 + 0.4 * ((hour * 7) % 5) / 4));
    for (let index = 0; index < count; index++) {
      const row = rows[(index * 7 + hour) % rows.length]!;
      const id = `${row.id}-h${hour}-${index}`;
      generations.record({ ...row, id, requestId: `${row.requestId}-h${hour}-${index}`, createdAt: new Date(at - ((index * 97_000) % (HOUR / 2))).toISOString() });
      replayed++;
    }
  }
  await generations.flush();
}
const browser = await launchChromium();
try {
  const ids: string[] = [];
  const chat = async (model: string) => {
    const answer = await setup.post("/chat/completions", { model, messages: [{ role: "user", content: "Summarise the on-call handover." }] });
    const id = answer.headers.get("x-generation-id") ?? ((await answer.clone().json()) as { id?: string }).id;
    if (id) ids.push(id);
    return answer;
  };
  for (const [model, input, output, delayMs] of TRAFFIC) {
    const upstream = model === "acme/chat-large" ? setup.anthropic : setup.openai;
    upstream.behave({ usage: { input, output }, delayMs });
    const answer = await chat(model);
    if (answer.status !== 200) throw new Error(`${model}: ${answer.status} ${await answer.text()}`);
  }
  // The cheap endpoint is overloaded for a while: the router fails over, the small model errors.
  setup.openai.behave({ status: 503, errorMessage: "overloaded" });
  for (let index = 0; index < 4; index++) await chat("acme/router");
  for (let index = 0; index < 3; index++) await chat("acme/chat-small");
  setup.reset();
  await replayIntoTheDayBefore(ids);

  const { context, page, errors, offMachine } = await watchedPage(browser);
  await signInWithKey(page, setup.gateway.url, ADMIN_KEY);
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
  // The generation log is written behind the answers: wait until the charts count every record.
  const total = TRAFFIC.length + 4 + 3 + replayed;
  for (let attempt = 1; ; attempt++) {
    const requests = page.getByRole("img", { name: /^Requests: / });
    await requests.waitFor();
    if ((await requests.getAttribute("aria-label"))?.startsWith(`Requests: ${total} in total`)) break;
    if (attempt === 50) throw new Error(`the Overview never counted ${total} requests: ${await requests.getAttribute("aria-label")}`);
    await page.reload();
  }
  await page.getByRole("table", { name: "Top providers" }).getByRole("rowheader", { name: "local-anthropic" }).waitFor();
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: OUTPUT, fullPage: true });
  if (errors.length > 0 || offMachine.length > 0) throw new Error(`the page logged errors ${JSON.stringify(errors)} or reached off the machine ${JSON.stringify(offMachine)}`);
  await context.close();
  console.log(`${OUTPUT}: ${Math.round(statSync(OUTPUT).size / 1024)} KB`);
} finally {
  await browser.close();
  await setup.stop();
}
