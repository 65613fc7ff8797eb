import { connect } from "node:net";

export type Reachability = { ok: true; address: string; ms: number } | { ok: false; address: string; reason: string };

/** The host and port a base URL connects to (80 or 443 unless given). */
export function addressOf(baseUrl: string): { host: string; port: number } {
  const url = new URL(baseUrl);
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return { host: url.hostname.replace(/^\[(.*)\]$/, "$1"), port };
}

function describeFailure(error: NodeJS.ErrnoException, host: string): string {
  switch (error.code) {
    case "ECONNREFUSED":
      return "connection refused (nothing is listening there)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return `the host name ${host} does not resolve`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "no route to the host";
    case "ECONNRESET":
      return "the connection was reset";
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}

/** Opens and closes one TCP connection to the base URL's host and port, within the timeout. */
export function probe(baseUrl: string, timeoutMs: number): Promise<Reachability> {
  const { host, port } = addressOf(baseUrl);
  const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const finish = (result: Reachability) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, address, reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.once("connect", () => finish({ ok: true, address, ms: Math.round(performance.now() - started) }));
    socket.once("error", (error: NodeJS.ErrnoException) => finish({ ok: false, address, reason: describeFailure(error, host) }));
  });
}
