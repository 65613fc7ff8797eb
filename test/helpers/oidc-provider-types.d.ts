// The part of oidc-provider's API the test identity provider uses (the package ships no types).
declare module "oidc-provider" {
  import type { Server } from "node:http";

  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string, callback?: () => void): Server;
    Grant: new (init: { clientId: string; accountId: string }) => Grant;
  }
}
