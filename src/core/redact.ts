import { GatewayError } from "./errors.ts";

/** Shorter values are not redacted: they would blank ordinary words of a message. */
const MIN_SECRET_LENGTH = 8;
const MASK = "[redacted]";

/**
 * The spellings of a secret an upstream may quote back: verbatim, URL-encoded, JSON-escaped, and
 * base64/base64url of the verbatim value. Longest first, so a longer spelling is masked whole.
 */
function spellings(secret: string): string[] {
  const forms = new Set([
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString("base64"),
    Buffer.from(secret).toString("base64").replace(/=+$/, ""),
    Buffer.from(secret).toString("base64url"),
  ]);
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * A message cut to a length limit (ours or the upstream's) may end in the first part of a secret:
 * at least half of it (and at least MIN_SECRET_LENGTH characters) before the end or an ellipsis is
 * masked too.
 */
function maskCutPrefix(text: string, secret: string): string {
  const shortest = Math.max(MIN_SECRET_LENGTH, Math.ceil(secret.length / 2));
  for (const ellipsis of ["…", "...", ""]) {
    if (!text.endsWith(ellipsis)) continue;
    const body = text.slice(0, text.length - ellipsis.length);
    for (let length = secret.length - 1; length >= shortest; length--) {
      if (body.endsWith(secret.slice(0, length))) return `${body.slice(0, body.length - length)}${MASK}${ellipsis}`;
    }
  }
  return text;
}

/** `text` with every secret (in every spelling above) replaced by a mask. */
export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (const spelling of spellings(secret)) if (result.includes(spelling)) result = result.split(spelling).join(MASK);
    result = maskCutPrefix(result, secret);
  }
  return result;
}

function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, secrets)]));
  }
  return value;
}

/** Whether a thrown value's message, or one of its causes', quotes a secret. */
function causeLeaks(cause: unknown, secrets: readonly string[]): boolean {
  for (let current = cause, depth = 0; current !== undefined && depth < 8; depth++) {
    const text = current instanceof Error ? current.message : String(current);
    if (redactText(text, secrets) !== text) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

/**
 * An error whose message, metadata and causes quote none of the secrets: the one redaction every
 * upstream failure passes before it reaches a client, a record or a log line. Runs only on failures;
 * an error that quotes nothing is returned as is.
 */
export function redactError(error: GatewayError, secrets: readonly string[]): GatewayError {
  if (secrets.length === 0) return error;
  const message = redactText(error.message, secrets);
  const metadata = error.metadata === undefined ? undefined : (redactValue(error.metadata, secrets) as Record<string, unknown>);
  const leakingCause = error.cause !== undefined && causeLeaks(error.cause, secrets);
  if (message === error.message && JSON.stringify(metadata) === JSON.stringify(error.metadata) && !leakingCause) return error;
  return new GatewayError(error.code, message, {
    errorType: error.errorType,
    ...(metadata !== undefined ? { metadata } : {}),
    ...(error.availability !== undefined ? { availability: error.availability } : {}),
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    ...(error.cause !== undefined && !leakingCause ? { cause: error.cause } : {}),
  });
}

/** Names of configured headers that carry a credential (`authorization`, `x-api-key`, `x-auth-token`…). */
const CREDENTIAL_HEADER = /auth|key|token|secret/i;

/** The configured upstream credentials: providers' keys and the values of their credential headers. */
export function configuredSecrets(providers: Iterable<{ apiKey?: string | undefined; headers: Record<string, string> }>): string[] {
  const secrets: string[] = [];
  for (const provider of providers) {
    if (provider.apiKey) secrets.push(provider.apiKey);
    for (const [name, value] of Object.entries(provider.headers)) if (CREDENTIAL_HEADER.test(name)) secrets.push(value.replace(/^(Bearer|Basic)\s+/i, ""));
  }
  return secrets;
}
