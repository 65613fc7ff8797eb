/**
 * The test identity provider in a process of its own, with its clock `clockOffsetSeconds` off (for
 * tokens that are expired, or not yet valid, by the gateway's clock). Prints "ready" once listening.
 * Argument: JSON `{port, redirectUri, clockOffsetSeconds}`.
 */
import Provider from "oidc-provider";
import { providerConfiguration, type TestAccount } from "./oidc-provider.ts";

const { port, redirectUri, clockOffsetSeconds } = JSON.parse(process.argv[2]!) as { port: number; redirectUri: string; clockOffsetSeconds: number };
const realNow = Date.now;
Date.now = () => realNow() + clockOffsetSeconds * 1000;
console.warn = () => {};
console.info = () => {};
const provider = new Provider(`http://127.0.0.1:${port}`, providerConfiguration(redirectUri, new Map<string, TestAccount>(), 60));
provider.listen(port, "127.0.0.1", () => process.stdout.write("ready\n"));
