import { GatewayError } from "./errors.ts";
import { normalizeHost } from "./hostname.ts";

/** Lowercase letters, digits and single underscores, starting with a letter, not ending with one. */
const SECRET_NAME = /^[a-z](?:[a-z0-9]|_(?=[a-z0-9]))*$/;

/** The longest value a vault secret may hold, in characters. */
export const MAX_SECRET_VALUE_LENGTH = 65_536;

/** A vault secret's name, as the API and the CLI accept it (400 otherwise). */
export function checkSecretName(name: string): string {
  if (name.length > 255 || !SECRET_NAME.test(name)) {
    throw new GatewayError(
      "bad_request",
      "name: must be 1 to 255 lowercase letters, digits and single underscores, starting with a letter and not ending with an underscore",
    );
  }
  return name;
}

/** A secret's hosts (normalised, duplicates dropped) and value, checked; `field` names where they came from. */
export function checkSecretWrite(input: { hosts: string[]; value: string }, field = { hosts: "body.hosts", value: "body.value" }): { hosts: string[]; value: string } {
  const hosts = new Set<string>();
  input.hosts.forEach((raw, index) => {
    const result = normalizeHost(raw);
    if ("problem" in result) throw new GatewayError("bad_request", `${field.hosts}[${index}]: ${result.problem}`);
    hosts.add(result.host);
  });
  if (input.value.length === 0) throw new GatewayError("bad_request", `${field.value}: must not be empty`);
  if (input.value.length > MAX_SECRET_VALUE_LENGTH) {
    throw new GatewayError("payload_too_large", `${field.value}: must be at most ${MAX_SECRET_VALUE_LENGTH} characters`);
  }
  return { hosts: [...hosts], value: input.value };
}

/** A workspace slug: lowercase letters, digits and inner hyphens, 1 to 64 characters. */
export const WORKSPACE_SLUG_PATTERN = "^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$";
export const WORKSPACE_SLUG_RULE = "lowercase letters, digits and inner hyphens, 1 to 64 characters";
