import { describe, expect, it } from "vitest";
import { routeByVersion } from "../../src/runtime/compat/route.js";
import { majorMinor } from "../../src/runtime/profile.js";
import { derived } from "../support/compat/mapping.js";

/**
 * Which version a request speaks, for an agent serving 1.0.1 and 0.3.0 (issue 10): the A2A-Version header,
 * a missing one meaning 0.3 (1.0.1 §3.2.6), and the method name as a second signal that must agree.
 */

const { mapping } = derived();
const route = (header: string | undefined, method: string | undefined) => routeByVersion(mapping, { header, method });

describe("routeByVersion", () => {
  it("the header decides: 1.0 → primary, 0.3 → compat, none → 0.3 (1.0.1 §3.2.6); patch versions and spaces are ignored", () => {
    expect(route("1.0", "SendMessage")).toEqual({ version: "primary" });
    expect(route(" 1.0.1 ", "GetTask")).toEqual({ version: "primary" });
    expect(route("0.3", "message/send")).toEqual({ version: "compat" });
    expect(route(undefined, "message/send")).toEqual({ version: "compat" });
    expect(route("", "tasks/get")).toEqual({ version: "compat" });
    expect(route("1.0", "ListTasks")).toEqual({ version: "primary" });
  });

  it("an unknown version is VersionNotSupported, listing the versions served", () => {
    expect(route("2.0", "SendMessage")).toEqual({
      error: "versionNotSupported",
      message: "A2A-Version 2.0 is not supported; this agent serves 1.0 and 0.3",
      supported: ["1.0", "0.3"],
    });
    expect(route("0.2", "message/send")).toMatchObject({ error: "versionNotSupported", supported: ["1.0", "0.3"] });
  });

  it("a method of the other version is a precise error naming both and the fix", () => {
    expect(route("1.0", "message/send")).toEqual({
      error: "mixedVersions",
      message: "message/send is an A2A 0.3 method but the request says A2A-Version 1.0: call SendMessage in A2A 1.0, or send A2A-Version: 0.3",
    });
    expect(route("0.3", "SendMessage")).toEqual({
      error: "mixedVersions",
      message: "SendMessage is an A2A 1.0 method but the request says A2A-Version 0.3: send A2A-Version: 1.0, or call message/send in A2A 0.3",
    });
    expect(route(undefined, "GetTask")).toEqual({
      error: "mixedVersions",
      message: "GetTask is an A2A 1.0 method but a request without A2A-Version is A2A 0.3 (§3.2.6): send A2A-Version: 1.0, or call tasks/get in A2A 0.3",
    });
    expect(route(undefined, "ListTasks")).toEqual({
      error: "mixedVersions",
      message: "ListTasks is an A2A 1.0 method but a request without A2A-Version is A2A 0.3 (§3.2.6): send A2A-Version: 1.0",
    });
  });

  it("every paired method routes with its own version's header and is refused with the other's", () => {
    for (const m of mapping.methods) {
      expect(route("1.0", m.primary), m.primary).toEqual({ version: "primary" });
      expect(route("0.3", m.compat), m.compat).toEqual({ version: "compat" });
      expect(route("0.3", m.primary), m.primary).toMatchObject({ error: "mixedVersions" });
      expect(route("1.0", m.compat), m.compat).toMatchObject({ error: "mixedVersions" });
    }
  });

  it("a method neither version has (or none) goes by the header: the version's own method-not-found answers it", () => {
    expect(route("1.0", "tasks/nope")).toEqual({ version: "primary" });
    expect(route(undefined, undefined)).toEqual({ version: "compat" });
    expect(majorMinor("1.0.1")).toBe("1.0");
  });
});
