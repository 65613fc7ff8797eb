import { describe, expect, test } from "bun:test";
import { checkFetchableUrl, isBlockedAddress } from "./url-guard.ts";

describe("SSRF guard for request-supplied URLs", () => {
  test.each([
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["10.1.2.3", true],
    ["172.16.0.1", true],
    ["172.31.255.255", true],
    ["172.32.0.1", false],
    ["192.168.1.1", true],
    ["169.254.169.254", true],
    ["100.64.0.1", true],
    ["0.0.0.0", true],
    ["224.0.0.1", true],
    ["8.8.8.8", false],
    ["93.184.216.34", false],
    ["::1", true],
    ["::", true],
    ["fe80::1", true],
    ["fd12:3456::1", true],
    ["ff02::1", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:8.8.8.8", false],
    ["2606:4700::1111", false],
    ["not an ip", true],
  ])("%s blocked: %p", (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked);
  });

  test("hostnames are checked on every address they resolve to", async () => {
    const resolve = async (host: string) => (host === "mixed.example" ? ["8.8.8.8", "10.0.0.5"] : ["8.8.4.4"]);
    await expect(checkFetchableUrl("https://mixed.example/a.png", { allowPrivate: false, resolve })).rejects.toThrow("private");
    expect((await checkFetchableUrl("https://public.example/a.png", { allowPrivate: false, resolve })).hostname).toBe("public.example");
    await expect(checkFetchableUrl("http://[::1]:8080/x", { allowPrivate: false, resolve })).rejects.toThrow("loopback");
    await expect(checkFetchableUrl("http://169.254.169.254/latest/meta-data", { allowPrivate: false, resolve })).rejects.toThrow();
  });

  test("only http(s), no credentials; allow_private_urls lifts the address check", async () => {
    const resolve = async () => ["127.0.0.1"];
    await expect(checkFetchableUrl("file:///etc/passwd", { allowPrivate: true, resolve })).rejects.toThrow("file:");
    await expect(checkFetchableUrl("http://user:pw@example.com/", { allowPrivate: true, resolve })).rejects.toThrow("credentials");
    expect((await checkFetchableUrl("http://localhost/x.png", { allowPrivate: true, resolve })).hostname).toBe("localhost");
    await expect(checkFetchableUrl("http://localhost/x.png", { allowPrivate: false, resolve })).rejects.toThrow();
  });
});
