import { expect, test } from "bun:test";
import { haproxyConfig, readReadme } from "./team.ts";

test("the bench runs the README's HAProxy example with its own bind, one server line per replica", () => {
  const config = haproxyConfig(readReadme(), 18080, ["127.0.0.1:1001", "127.0.0.1:1002", "127.0.0.1:1003"]);
  expect(config).toContain("bind 127.0.0.1:18080");
  expect(config).toContain("balance leastconn");
  expect(config.split("\n").filter((line) => line.trim().startsWith("server "))).toEqual([
    "  server replica1 127.0.0.1:1001 check inter 2s fall 2 rise 1",
    "  server replica2 127.0.0.1:1002 check inter 2s fall 2 rise 1",
    "  server replica3 127.0.0.1:1003 check inter 2s fall 2 rise 1",
  ]);
  expect(config).toMatch(/option httpchk GET \/readyz\n\s+http-check expect status 200\n/);
  const single = haproxyConfig(readReadme(), 18081, ["127.0.0.1:2001"]);
  expect(single.split("\n").filter((line) => line.trim().startsWith("server "))).toEqual(["  server replica1 127.0.0.1:2001 check inter 2s fall 2 rise 1"]);
});
