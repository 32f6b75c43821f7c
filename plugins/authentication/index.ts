export * from "./authenticator.ts";
export * from "./union.ts";
export { x509Authenticator } from "./x509/x509.ts";
