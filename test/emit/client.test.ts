// The client emitter (src/emit/client.ts, issue 13): method names from the IR method with one rule for
// every version, doc comments without doubled words, no `as unknown as`, and the optional runtime file.
import { describe, expect, it } from "vitest";
import { clientMethodDoc, clientMethodName, clientView } from "../../src/emit/client.js";
import { generate } from "../../src/generate.js";

describe("clientMethodName", () => {
  it("is the lowerCamelCase of the operation: the 1.0 rpc, or the 0.x request definition less Request", () => {
    expect(clientMethodName({ method: "SendMessage", requestType: "SendMessageRpcRequest" })).toBe("sendMessage");
    expect(clientMethodName({ method: "ListTaskPushNotificationConfigs", requestType: "ListTaskPushNotificationConfigsRpcRequest" })).toBe("listTaskPushNotificationConfigs");
    expect(clientMethodName({ method: "message/send", requestType: "SendMessageRequest" })).toBe("sendMessage");
    expect(clientMethodName({ method: "tasks/pushNotificationConfig/get", requestType: "GetTaskPushNotificationConfigRequest" })).toBe("getTaskPushNotificationConfig");
    expect(clientMethodName({ method: "tasks/send", requestType: "SendTaskRequest" })).toBe("sendTask");
  });
});

describe("clientMethodDoc", () => {
  it("drops the schema's sentence that names the method again", () => {
    expect(clientMethodDoc({ method: "SendMessage", description: "JSON-RPC request of the `SendMessage` method (A2A JSON-RPC binding). Sends a message to an agent." })).toBe(
      "`SendMessage`: Sends a message to an agent.",
    );
    expect(clientMethodDoc({ method: "tasks/get", description: "Represents a JSON-RPC request for the `tasks/get` method." })).toBe("`tasks/get`");
    expect(clientMethodDoc({ method: "x", description: undefined })).toBe("`x`");
  });
});

describe("the generated 1.0.1 client", () => {
  it("names every method as 0.3.0 does, with no doubled words in its doc comments and no `as unknown as`", async () => {
    const [v1, v03] = await Promise.all([generate({ spec: "1.0.1" }), generate({ spec: "0.3.0" })]);
    const names = (ir: typeof v1.ir) => clientView(ir).methods.map((m) => m.name);
    expect(names(v1.ir)).toEqual([
      "sendMessage",
      "sendStreamingMessage",
      "getTask",
      "listTasks",
      "cancelTask",
      "subscribeToTask",
      "createTaskPushNotificationConfig",
      "getTaskPushNotificationConfig",
      "listTaskPushNotificationConfigs",
      "getExtendedAgentCard",
      "deleteTaskPushNotificationConfig",
    ]);
    // The methods both versions have carry the same names.
    expect(names(v03.ir)).toEqual(expect.arrayContaining(["sendMessage", "sendStreamingMessage", "getTask", "cancelTask", "getTaskPushNotificationConfig"]));
    for (const { files } of [v1, v03]) {
      const client = files["client.ts"] ?? "";
      expect(client).not.toMatch(/Rpc\(/);
      expect(client).not.toContain("as unknown as");
      const comments = [...client.matchAll(/\/\*\*([\s\S]*?)\*\//g)].map((m) => (m[1] ?? "").replace(/\n\s*\*/g, " "));
      for (const comment of comments) expect(comment, comment).not.toMatch(/\b(\w+)\s+\1\b/i);
      const methodDocs = comments.filter((c) => /`[A-Za-z/]+`: /.test(c));
      for (const doc of methodDocs) expect(doc, doc).not.toMatch(/JSON-RPC request (of|for) the/);
      // The template's logic lives in the runtime now.
      expect(client).not.toMatch(/function isFinalEvent|function withVersionHeader/);
    }
  });

  it("emits runtime/card/signature.ts only with cardSignatures (it imports jose)", async () => {
    const plain = await generate({ spec: "1.0.1", frameworks: ["node"] });
    const signed = await generate({ spec: "1.0.1", frameworks: ["node"], cardSignatures: true });
    expect(Object.keys(plain.files)).not.toContain("runtime/card/signature.ts");
    expect(signed.files["runtime/card/signature.ts"]).toMatch(/from "jose"/);
    // Nothing else imports it: the default client needs no package.
    for (const [path, text] of Object.entries(signed.files)) if (path !== "runtime/card/signature.ts") expect(text, path).not.toMatch(/card\/signature\.js"|from "jose"/);
  });
});
