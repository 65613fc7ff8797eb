import type * as Oidc from "openid-client";

/** openid-client (and jose under it), loaded at the first sign-in: a gateway without SSO never loads it. */
let oidcModule: Promise<typeof Oidc> | undefined;
let loaded: typeof Oidc | undefined;
function loadOidc(): Promise<typeof Oidc> {
  return (oidcModule ??= import("openid-client").then((module) => (loaded = module)));
}

/** What the relying party needs of the SSO configuration. */
export interface RelyingPartySettings {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  scopes: readonly string[];
  /** Seconds of clock difference tolerated on the ID token's times. */
  clockTolerance: number;
}

/** One sign-in in flight: what the callback must check, kept sealed in the browser meanwhile. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
}

/** The verified identity of a finished sign-in: the ID token's claims, with userinfo's when it lacked some. */
export interface SignedInIdentity {
  issuer: string;
  subject: string;
  claims: Record<string, unknown>;
}

/**
 * A refused sign-in. `reason` is safe to show and log: it never holds a token, code or secret
 * (openid-client's messages name the failed check, not the values).
 */
export class SignInRefused extends Error {
  override name = "SignInRefused";
  constructor(
    readonly reason: string,
    readonly status: 400 | 401 | 403 | 502,
  ) {
    super(reason);
  }
}

const DISCOVERY_TIMEOUT_SECONDS = 10;

/** The message of an openid-client failure, without anything the provider echoed back. */
function describeFailure(error: unknown): string {
  if (loaded && error instanceof loaded.AuthorizationResponseError) return `the identity provider answered ${error.error}`;
  if (loaded && error instanceof loaded.ResponseBodyError) return `the identity provider refused the code exchange (${error.error})`;
  if (error instanceof Error) {
    // openid-client wraps oauth4webapi's failure, whose message names the failed check (never a value).
    const detail = error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
    return detail.replace(/\s+/g, " ").slice(0, 300);
  }
  return "unknown failure";
}

/**
 * The OpenID Connect relying party (openid-client): authorization code flow with PKCE S256, state and
 * nonce. The provider's metadata is discovered once (again after a failure) and its signing keys are
 * cached by openid-client, so ID tokens are verified offline until the provider rotates its keys.
 */
export class OidcRelyingParty {
  #configuration: Promise<Oidc.Configuration> | undefined;

  constructor(private readonly settings: RelyingPartySettings) {}

  /** The configured issuer, for the sign-in page. */
  get issuer(): string {
    return this.settings.issuer;
  }

  async #discover(): Promise<Oidc.Configuration> {
    const { issuer, clientId, clientSecret, clockTolerance } = this.settings;
    const insecure = new URL(issuer).protocol === "http:";
    const oidc = await loadOidc();
    const configuration = await oidc.discovery(
      new URL(issuer),
      clientId,
      { ...(clientSecret === undefined ? { token_endpoint_auth_method: "none" } : { client_secret: clientSecret }), [oidc.clockTolerance]: clockTolerance },
      clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(clientSecret),
      { timeout: DISCOVERY_TIMEOUT_SECONDS, ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}) },
    );
    return configuration;
  }

  /** The provider's configuration, discovered on first use; a failed discovery is tried again next time. */
  async configuration(): Promise<Oidc.Configuration> {
    this.#configuration ??= this.#discover().catch((error: unknown) => {
      this.#configuration = undefined;
      throw new SignInRefused(`The identity provider at the configured issuer could not be used: ${describeFailure(error)}`, 502);
    });
    return this.#configuration;
  }

  /** Starts a sign-in: the provider's authorization URL and what the callback must check. */
  async begin(redirectUri: string): Promise<{ url: URL; pending: PendingSignIn }> {
    const configuration = await this.configuration();
    const oidc = await loadOidc();
    const pending: PendingSignIn = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), redirectUri };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes.join(" "),
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: "S256",
    });
    return { url, pending };
  }

  /**
   * Finishes a sign-in at the callback URL: checks state, exchanges the code with the PKCE verifier,
   * and verifies the ID token (signature against the provider's keys, issuer, audience, expiry, nonce).
   */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<SignedInIdentity> {
    const configuration = await this.configuration();
    const oidc = await loadOidc();
    // The provider redirects to the registered URL; the check compares against the one the flow used.
    const current = new URL(pending.redirectUri);
    current.search = callbackUrl.search;
    let tokens: Awaited<ReturnType<typeof Oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, current, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw new SignInRefused(`Sign-in refused: ${describeFailure(error)}`, error instanceof oidc.AuthorizationResponseError ? 403 : 401);
    }
    const idToken = tokens.claims();
    if (!idToken) throw new SignInRefused("Sign-in refused: the identity provider returned no ID token", 401);
    let claims: Record<string, unknown> = { ...idToken };
    if (claims.email === undefined && tokens.access_token) {
      try {
        claims = { ...(await oidc.fetchUserInfo(configuration, tokens.access_token, idToken.sub)), ...claims };
      } catch (error) {
        throw new SignInRefused(`Sign-in refused: the userinfo request failed: ${describeFailure(error)}`, 502);
      }
    }
    return { issuer: idToken.iss, subject: idToken.sub, claims };
  }
}
