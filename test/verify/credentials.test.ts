// How `verify --auth` credentials are sent: where the card's security scheme puts them (1.0 and 0.3 card
// spellings), as a header given as `Name: value`, or read from the environment.
import { describe, expect, it } from "vitest";
import { credentialsFor, credentialValues, declaresSecurity } from "../../src/verify/credentials.js";

const v1 = (scheme: Record<string, unknown>) => ({ securitySchemes: { s: scheme }, securityRequirements: [{ schemes: { s: { list: [] } } }] });

describe("verify's credentials", () => {
  it("a bare value goes where the card's scheme says", () => {
    expect(credentialsFor(v1({ httpAuthSecurityScheme: { scheme: "Bearer" } }), ["t"])[0]?.headers).toEqual({ authorization: "Bearer t" });
    expect(credentialsFor(v1({ httpAuthSecurityScheme: { scheme: "Basic" } }), ["u:p"])[0]?.headers).toEqual({ authorization: `Basic ${Buffer.from("u:p").toString("base64")}` });
    expect(credentialsFor(v1({ apiKeySecurityScheme: { location: "header", name: "X-Api-Key" } }), ["k"])[0]?.headers).toEqual({ "x-api-key": "k" });
    // 0.3 spelling: `type: apiKey, in: header`.
    expect(credentialsFor({ securitySchemes: { k: { type: "apiKey", in: "header", name: "X-Key" } }, security: [{ k: [] }] }, ["k"])[0]?.headers).toEqual({ "x-key": "k" });
    expect(credentialsFor({}, ["t"])[0]?.headers).toEqual({ authorization: "Bearer t" });
  });

  it("`Name: value` is that header; labels name the credentials, never their values", () => {
    const [a, b] = credentialsFor({}, ["X-Custom: one, two", "Authorization: Bearer x"]);
    expect(a).toEqual({ headers: { "x-custom": "one, two" }, label: "credential A" });
    expect(b).toEqual({ headers: { authorization: "Bearer x" }, label: "credential B" });
  });

  it("env:NAME reads the environment; an unset or empty one is a usage error naming it", () => {
    expect(credentialValues(["env:TOKEN", "plain"], { TOKEN: "s3cret" })).toEqual(["s3cret", "plain"]);
    expect(() => credentialValues(["env:MISSING"], {})).toThrow(/MISSING is not set/);
    expect(() => credentialValues(["env:EMPTY"], { EMPTY: "" })).toThrow(/EMPTY is not set or empty/);
  });

  it("a card declares security by its schemes and requirements (1.0 and 0.3)", () => {
    expect(declaresSecurity(v1({ httpAuthSecurityScheme: { scheme: "Bearer" } }))).toBe(true);
    expect(declaresSecurity({ securitySchemes: { b: { type: "http", scheme: "bearer" } }, security: [{ b: [] }] })).toBe(true);
    expect(declaresSecurity({ name: "open" })).toBe(false);
  });
});
