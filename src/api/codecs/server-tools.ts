import { GatewayError } from "../../core/errors.ts";

/**
 * What the gateway does with a server tool (one the provider side runs: web search, file search, code
 * interpreter, ...). It runs none yet and no upstream adapter passes one through, so every server tool
 * follows OpenRouter's rule for unsupported parameters: dropped from the upstream request and said so,
 * unless `provider.require_parameters` is true, which makes it a 400 naming the tool. This is the one
 * place that decides; running a tool instead is a later answer here.
 */
export interface ServerToolPlan {
  action: "drop";
  warning: string;
}

export function planServerTool(type: string, where: string, provider: unknown): ServerToolPlan {
  const requireParameters =
    typeof provider === "object" && provider !== null && (provider as Record<string, unknown>).require_parameters === true;
  if (requireParameters) {
    throw new GatewayError(
      "bad_request",
      `${where}: server tool "${type}" is not supported by any endpoint for this model, and provider.require_parameters is true`,
    );
  }
  return { action: "drop", warning: `${where}: server tool "${type}" is not supported by any endpoint for this model and was dropped` };
}
