import { GatewayError } from "../../src/plugins/api.ts";

/**
 * Domain lists of the web tools (`allowed_domains`, `excluded_domains`, `blocked_domains`, the `web`
 * plugin's `include_domains` and `exclude_domains`). A pattern is:
 * - `example.com`: that host and its subdomains (`docs.example.com`);
 * - `*.example.com`: its subdomains only;
 * - either followed by a path prefix, `example.com/blog`: pages under `/blog` (`/blog`, `/blog/post`,
 *   not `/blogroll`).
 * A scheme (`https://`) is ignored; letters compare without case.
 */

interface DomainRule {
  host: string;
  subdomainsOnly: boolean;
  /** Without a trailing slash; empty for the whole host. */
  path: string;
}

const PATTERN = /^(\*\.)?([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)(\/[^\s?#]*)?$/;

function parseRule(pattern: string): DomainRule | undefined {
  const match = PATTERN.exec(pattern.trim().toLowerCase().replace(/^https?:\/\//, ""));
  if (!match) return undefined;
  return { host: match[2]!, subdomainsOnly: match[1] !== undefined, path: (match[3] ?? "").replace(/\/+$/, "") };
}

function matches(rule: DomainRule, url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const hostMatches = host.endsWith(`.${rule.host}`) || (!rule.subdomainsOnly && host === rule.host);
  if (!hostMatches) return false;
  const path = url.pathname.toLowerCase();
  return rule.path === "" || path === rule.path || path.startsWith(`${rule.path}/`);
}

/** One list as a request gave it, and where (for error messages: `web_search: parameters.allowed_domains`). */
export interface DomainList {
  field: string;
  patterns: readonly string[] | undefined;
}

/** Decides which URLs a request's domain lists let through. */
export interface DomainFilter {
  /** Why the URL is refused (naming the list), or undefined when it passes. */
  refusal(url: string): string | undefined;
}

function compile(list: DomainList | undefined): { field: string; rules: DomainRule[] } | undefined {
  if (!list?.patterns || list.patterns.length === 0) return undefined;
  const rules = list.patterns.map((pattern, index) => {
    const rule = parseRule(pattern);
    if (!rule) {
      throw new GatewayError(
        "bad_request",
        `${list.field}[${index}]: ${JSON.stringify(pattern)} is not a domain pattern (use example.com, *.example.com or example.com/path)`,
      );
    }
    return rule;
  });
  return { field: list.field, rules };
}

/**
 * The filter of an allow-list and a deny-list (either may be absent or empty): a URL passes when it
 * matches the allow-list (if one is given) and not the deny-list, which wins. A pattern that is not a
 * domain is a 400 naming it.
 */
export function domainFilter(allowed: DomainList | undefined, denied: DomainList | undefined): DomainFilter {
  const allow = compile(allowed);
  const deny = compile(denied);
  return {
    refusal(raw) {
      const url = URL.parse(raw);
      if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return `${JSON.stringify(raw)} is not an http(s) URL`;
      if (allow && !allow.rules.some((rule) => matches(rule, url))) return `${url.hostname}${url.pathname} is not in ${allow.field}`;
      if (deny?.rules.some((rule) => matches(rule, url))) return `${url.hostname}${url.pathname} is excluded by ${deny.field}`;
      return undefined;
    },
  };
}
