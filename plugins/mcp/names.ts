/**
 * The names of an MCP server's tools as functions offered to the model: `<server_label>__<tool>`, in
 * the characters every upstream accepts ([A-Za-z0-9_-]) and at most 64 of them. A name that had to be
 * cut, or that two tools would share, ends in a short hash of the tool's own name instead, so the same
 * server always yields the same names: `run` maps a function back to its tool from the server's list.
 */
import { createHash } from "node:crypto";

export const MAX_FUNCTION_NAME = 64;
const MAX_LABEL = 40;
const HASH_LENGTH = 8;

function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

function hashed(prefix: string, tool: string): string {
  const hash = createHash("sha256").update(tool).digest("hex").slice(0, HASH_LENGTH);
  return `${`${prefix}${sanitize(tool)}`.slice(0, MAX_FUNCTION_NAME - HASH_LENGTH - 1)}_${hash}`;
}

/** Function name → tool name, for the tools of one server, in the order given. */
export function functionNames(serverLabel: string, tools: string[]): Map<string, string> {
  const prefix = `${sanitize(serverLabel).slice(0, MAX_LABEL)}__`;
  const plain = (tool: string) => `${prefix}${sanitize(tool)}`;
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(plain(tool), (counts.get(plain(tool)) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const tool of tools) {
    const name = plain(tool);
    names.set(name.length <= MAX_FUNCTION_NAME && counts.get(name) === 1 ? name : hashed(prefix, tool), tool);
  }
  return names;
}
