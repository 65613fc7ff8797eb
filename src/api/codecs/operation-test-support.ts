/**
 * Test support for the operation codecs: a body decoded as the route decodes it (checked against the
 * codec's schema, then decoded with its envelope), the message of a refused body, an image part, and
 * the encode context of a generation.
 */
import { expect } from "bun:test";
import { GatewayError } from "../../core/errors.ts";
import type { OperationRequest } from "../../core/operations.ts";
import { thrownGatewayError } from "../../core/test-support.ts";
import { emptyUsage, type Usage } from "../../core/usage.ts";
import { validate } from "../../core/validation-errors.ts";
import { decodeEnvelope } from "./envelope.ts";
import type { OperationCodec, OperationEncodeContext } from "./operation-codec.ts";

type Body = Record<string, unknown>;

/** An `image_url` part of a body, as references and frames are sent. */
export function imageUrlPart(url: string): { type: "image_url"; image_url: { url: string } } {
  return { type: "image_url", image_url: { url } };
}

/** The message of the 400 that `run` throws. */
export function refusalOf(run: () => unknown): string {
  const error = thrownGatewayError(run);
  expect(error.status).toBe(400);
  return error.message;
}

/** A codec's decoding as the route does it, on bodies laid over a base body. */
export interface CodecSteps<Request> {
  /** The schema's problem with `body`, named as the route names it (`body.field: reason`), or null. */
  problem(body: Body): string | null;
  /** The canonical request of `body`. */
  decode(body: Body): Request;
  /** The message of the 400 that decoding `body` throws. */
  refusal(body: Body): string;
}

/**
 * Decodes bodies (over `base`) with `codec`: the schema's check, whose problem is the route's 400, then
 * the codec's decode with the envelope. With `schemaAccepts`, every body must pass the schema, so that
 * a refusal is the codec's own.
 */
export function codecSteps<Request extends OperationRequest>(
  codec: Pick<OperationCodec<Request, unknown>, "schema" | "decode">,
  options: { base?: Body; schemaAccepts?: boolean } = {},
): CodecSteps<Request> {
  const problem = (body: Body) => validate(codec.schema, { ...options.base, ...body }, "body");
  const decode = (body: Body): Request => {
    const found = problem(body);
    if (options.schemaAccepts) expect(found).toBeNull();
    else if (found !== null) throw new GatewayError("bad_request", found);
    const full = { ...options.base, ...body };
    return codec.decode(full, decodeEnvelope(full));
  };
  return { problem, decode, refusal: (body) => refusalOf(() => decode(body)) };
}

/** The encode context of generation `gen-1` of `acme/model` by "Local" at Unix second 1_700_000_000, with `fields` and `usage` over it. */
export function encodeContext(fields: Partial<Omit<OperationEncodeContext, "usage">> = {}, usage: Partial<Usage> = {}): OperationEncodeContext {
  return {
    id: "gen-1",
    model: "acme/model",
    created: 1_700_000_000,
    provider: "Local",
    providerSlug: "local",
    cost: 0,
    ...fields,
    usage: { ...emptyUsage(), ...usage },
  };
}
