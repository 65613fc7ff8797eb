import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BLOCKED_LITERALS, PUBLIC_LITERALS } from "../../test/helpers/blocked-addresses.ts";
import { checkFetchableUrl, isBlockedAddress, parseIpv6 } from "./url-guard.ts";

/** How the URL parser spells a host: what the guard sees when the address is a literal in the URL. */
const hostOf = (literal: string) => new URL(`http://${literal.includes(":") ? `[${literal}]` : literal}/`).hostname.replace(/^\[|\]$/g, "");

describe("SSRF guard for request-supplied URLs", () => {
  test.each(BLOCKED_LITERALS)("%s is blocked", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  test.each(BLOCKED_LITERALS.filter((address) => !address.includes(" ") && !address.includes("%") && URL.canParse(`http://[${address}]/`)))(
    "%s is blocked as the URL parser spells it",
    (address) => {
      expect(isBlockedAddress(hostOf(address))).toBe(true);
    },
  );

  test.each(PUBLIC_LITERALS)("%s is public", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
    expect(isBlockedAddress(hostOf(address))).toBe(false);
  });

  test("an IPv4 address embedded in IPv6 is judged as that IPv4 address, in every spelling", () => {
    const hex = (value: number) => value.toString(16);
    /** Ways to write an IPv6 address whose low 32 bits (or 6to4 bits 16–48) are the IPv4 address. */
    const spellings: Array<(octets: number[]) => string> = [
      (o) => `::ffff:${o.join(".")}`,
      (o) => `::ffff:${hex(o[0]! * 256 + o[1]!)}:${hex(o[2]! * 256 + o[3]!)}`,
      (o) => `0:0:0:0:0:ffff:${o.join(".")}`,
      (o) => `0000:0000:0000:0000:0000:ffff:${hex(o[0]! * 256 + o[1]!).padStart(4, "0")}:${hex(o[2]! * 256 + o[3]!).padStart(4, "0")}`,
      (o) => `0::ffff:${o.join(".")}`,
      (o) => `::ffff:0:${o.join(".")}`,
      (o) => `64:ff9b::${o.join(".")}`,
      (o) => `64:ff9b:0:0:0:0:${hex(o[0]! * 256 + o[1]!)}:${hex(o[2]! * 256 + o[3]!)}`,
      (o) => `2002:${hex(o[0]! * 256 + o[1]!)}:${hex(o[2]! * 256 + o[3]!)}::1`,
    ];
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }), fc.nat(spellings.length - 1), fc.boolean(), (octets, which, upper) => {
        const written = spellings[which]!(octets);
        const spelled = upper ? written.toUpperCase() : written;
        const expected = isBlockedAddress(octets.join("."));
        expect(isBlockedAddress(spelled)).toBe(expected);
        expect(isBlockedAddress(hostOf(spelled))).toBe(expected);
        // IPv4-compatible (deprecated) is never a destination.
        expect(isBlockedAddress(`::${octets.join(".")}`)).toBe(true);
      }),
      { seed: 11, numRuns: 2_000 },
    );
  });

  test("IPv6 is read into eight groups", () => {
    expect(parseIpv6("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6("::ffff:127.0.0.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIpv6("64:ff9b::7f00:1")).toEqual([0x64, 0xff9b, 0, 0, 0, 0, 0x7f00, 1]);
    expect(parseIpv6("1:2:3:4:5:6:7::")).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
    expect(parseIpv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIpv6("1:2:3:4:5:6:7")).toBeUndefined();
    expect(parseIpv6("1:2:3:4::5:6:7:8")).toBeUndefined();
    expect(parseIpv6("::1.2.3")).toBeUndefined();
  });

  test("hostnames are checked on every address they resolve to, and the checked addresses are the ones returned", async () => {
    const resolve = async (host: string) => (host === "mixed.example" ? ["8.8.8.8", "::ffff:7f00:1"] : ["8.8.4.4"]);
    await expect(checkFetchableUrl("https://mixed.example/a.png", { allowPrivate: false, resolve })).rejects.toThrow("blocked");
    const checked = await checkFetchableUrl("https://public.example/a.png", { allowPrivate: false, resolve });
    expect({ host: checked.url.hostname, addresses: checked.addresses }).toEqual({ host: "public.example", addresses: ["8.8.4.4"] });
    await expect(checkFetchableUrl("http://[::1]:8080/x", { allowPrivate: false, resolve })).rejects.toThrow("blocked");
    await expect(checkFetchableUrl("http://[::ffff:127.0.0.1]:8080/x", { allowPrivate: false, resolve })).rejects.toThrow("blocked");
    await expect(checkFetchableUrl("http://0x7f.1/x", { allowPrivate: false, resolve })).rejects.toThrow("blocked");
    await expect(checkFetchableUrl("http://2130706433/x", { allowPrivate: false, resolve })).rejects.toThrow("blocked");
    await expect(checkFetchableUrl("http://169.254.169.254/latest/meta-data", { allowPrivate: false, resolve })).rejects.toThrow("blocked");
  });

  test("a name that does not resolve reads like any other unreachable host", async () => {
    const resolve = async () => {
      throw new Error("getaddrinfo ENOTFOUND");
    };
    await expect(checkFetchableUrl("https://nowhere.example/a.png", { allowPrivate: false, resolve })).rejects.toThrow(/^not reachable$/);
  });

  test("only http(s), no credentials; allow_private_urls lifts the address check but still resolves once", async () => {
    const resolve = async () => ["127.0.0.1"];
    await expect(checkFetchableUrl("file:///etc/passwd", { allowPrivate: true, resolve })).rejects.toThrow("file:");
    await expect(checkFetchableUrl("http://user:pw@example.com/", { allowPrivate: true, resolve })).rejects.toThrow("credentials");
    expect((await checkFetchableUrl("http://localhost/x.png", { allowPrivate: true, resolve })).addresses).toEqual(["127.0.0.1"]);
    await expect(checkFetchableUrl("http://localhost/x.png", { allowPrivate: false, resolve })).rejects.toThrow("blocked");
  });
});
