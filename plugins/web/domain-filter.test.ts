import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../src/plugins/api.ts";
import { domainFilter } from "./domain-filter.ts";

const allow = (...patterns: string[]) => domainFilter({ field: "allowed", patterns }, undefined);
const deny = (...patterns: string[]) => domainFilter(undefined, { field: "excluded", patterns });
const passes = (filter: ReturnType<typeof domainFilter>, url: string) => filter.refusal(url) === undefined;

describe("domain filters", () => {
  test("a bare domain covers the host and its subdomains, not look-alikes", () => {
    const filter = allow("example.com");
    expect(passes(filter, "https://example.com/")).toBe(true);
    expect(passes(filter, "https://docs.example.com/a")).toBe(true);
    expect(passes(filter, "https://a.b.example.com/a")).toBe(true);
    expect(passes(filter, "https://notexample.com/")).toBe(false);
    expect(passes(filter, "https://example.com.evil.net/")).toBe(false);
  });

  test("a wildcard covers subdomains only", () => {
    const filter = allow("*.example.com");
    expect(passes(filter, "https://docs.example.com/")).toBe(true);
    expect(passes(filter, "https://example.com/")).toBe(false);
  });

  test("a path prefix covers that path and below, at a segment boundary", () => {
    const filter = allow("example.com/blog");
    expect(passes(filter, "https://example.com/blog")).toBe(true);
    expect(passes(filter, "https://example.com/blog/first-post")).toBe(true);
    expect(passes(filter, "https://example.com/blogroll")).toBe(false);
    expect(passes(filter, "https://example.com/shop")).toBe(false);
  });

  test("schemes, case and trailing dots do not matter", () => {
    const filter = allow("HTTPS://Example.COM/Blog/");
    expect(passes(filter, "http://EXAMPLE.com./blog/x")).toBe(true);
  });

  test("the deny-list wins over the allow-list, and refusals name the list", () => {
    const filter = domainFilter({ field: "allowed", patterns: ["example.com"] }, { field: "excluded", patterns: ["example.com/shop"] });
    expect(filter.refusal("https://example.com/blog/x")).toBeUndefined();
    expect(filter.refusal("https://example.com/shop/item")).toBe("example.com/shop/item is excluded by excluded");
    expect(filter.refusal("https://other.org/")).toBe("other.org/ is not in allowed");
    expect(passes(deny("other.org"), "https://news.other.org/x")).toBe(false);
    expect(passes(deny("other.org"), "https://example.com/")).toBe(true);
  });

  test("empty or absent lists let every http(s) URL through, and nothing else", () => {
    const filter = domainFilter({ field: "allowed", patterns: [] }, undefined);
    expect(passes(filter, "https://anything.example/")).toBe(true);
    expect(filter.refusal("ftp://example.com/")).toBe('"ftp://example.com/" is not an http(s) URL');
    expect(filter.refusal("not a url")).toBe('"not a url" is not an http(s) URL');
  });

  test("a pattern that is not a domain is a 400 naming it", () => {
    for (const pattern of ["", "exa mple.com", "*", "*.", "example.com?q=1", "-bad.com", "a..b"]) {
      let error: unknown;
      try {
        domainFilter({ field: "web_search: parameters.allowed_domains", patterns: ["fine.com", pattern] }, undefined);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).code).toBe("bad_request");
      expect((error as GatewayError).message).toStartWith(`web_search: parameters.allowed_domains[1]: ${JSON.stringify(pattern)} is not a domain pattern`);
    }
  });
});
