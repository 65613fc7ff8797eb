import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_KEY, listening } from "./helpers/gateway.ts";

test("a key revoked by another process (the CLI) stops working within a second on a running gateway", async () => {
  const gateway = await listening();
  const other = new Database(join(gateway.dataDir, "roundhouse.db"));
  try {
    const created = await fetch(`${gateway.url}/api/v1/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "to revoke elsewhere" }),
    });
    const { key, data } = await created.json();
    const me = () => fetch(`${gateway.url}/api/v1/key`, { headers: { authorization: `Bearer ${key}` } });
    expect((await me()).status).toBe(200);
    other.exec("PRAGMA busy_timeout = 2000");
    other.query("DELETE FROM api_keys WHERE hash = ?").run(data.hash);
    await Bun.sleep(1100);
    expect((await me()).status).toBe(401);
  } finally {
    other.close();
    await gateway.stop();
  }
});
