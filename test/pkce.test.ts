/** The PKCE helpers and the callback URL rule shared by the consent page, the exchange and `roundhouse login`. */
import { describe, expect, test } from "bun:test";
import { oAuthCreateSHA256CodeChallenge } from "@openrouter/sdk/funcs/oAuthCreateSHA256CodeChallenge";
import { appOf, checkCallbackUrl, checkChallenge, newCodeVerifier, PKCE_VALUE, s256Challenge, verifierMatches } from "../src/core/pkce.ts";

describe("PKCE", () => {
  test("S256 is base64url SHA-256, as the @openrouter/sdk computes it; plain compares; verifiers are well-formed", async () => {
    const verifier = newCodeVerifier();
    const computed = await oAuthCreateSHA256CodeChallenge({ codeVerifier: verifier });
    if (!computed.ok) throw computed.error;
    const { codeChallenge } = computed.value;
    expect(s256Challenge(verifier)).toBe(codeChallenge);
    expect(verifierMatches(codeChallenge, "S256", verifier)).toBe(true);
    expect(verifierMatches(codeChallenge, "S256", `${verifier.slice(0, -1)}${verifier.endsWith("a") ? "b" : "a"}`)).toBe(false);
    expect(verifierMatches("a".repeat(43), "plain", "a".repeat(43))).toBe(true);
    expect(PKCE_VALUE.test(newCodeVerifier())).toBe(true);
    expect(checkChallenge(undefined, undefined)).toEqual({ codeChallenge: null, codeChallengeMethod: null });
    expect(checkChallenge("a".repeat(43), undefined)).toEqual({ codeChallenge: "a".repeat(43), codeChallengeMethod: "plain" });
    expect(() => checkChallenge(undefined, "S256")).toThrow("without code_challenge");
    expect(() => checkChallenge("short", "S256")).toThrow("code_challenge");
    expect(() => checkChallenge("a".repeat(43), "S512")).toThrow("code_challenge_method");
  });

  test("callbacks: https anywhere, http on loopback only, no user information or fragment", () => {
    for (const ok of ["https://app.example.com/cb?x=1", "http://localhost:3000/cb", "http://127.0.0.1:1/cb", "http://[::1]:8080/cb"]) expect(checkCallbackUrl(ok).href).toBeString();
    for (const bad of ["http://example.com/cb", "http://127.0.0.2/cb", "http://localhost.evil.com/cb", "javascript:alert(1)", "data:text/html,x", "https://u:p@app.example.com/", "https://app.example.com/#", "//app.example.com", "x".repeat(3000)]) {
      expect(() => checkCallbackUrl(bad)).toThrow("callback_url");
    }
    expect(appOf(new URL("http://127.0.0.1:4567/cb")).name).toBe("localhost:4567");
    expect(appOf(new URL("https://app.example.com/cb")).name).toBe("app.example.com");
    expect(Number.isSafeInteger(appOf(new URL("https://app.example.com/cb")).id)).toBe(true);
  });
});
