import type { Json, JsonObject } from "../../src/schema/json.js";

/**
 * Changes to the 0.3.0 schema the generator has never seen, shared by the generator and diff tests:
 * a new request method (`tasks/list`) and a new Part member (`AudioPart`). Each mutates the
 * `definitions` of a copy of the schema.
 */
export function addListTasksMethod(d: Record<string, JsonObject>): void {
  d.ListTasksParams = {
    type: "object",
    description: "Filters for tasks/list.",
    properties: { contextId: { type: "string" }, pageSize: { type: "integer" } },
  };
  d.ListTasksRequest = {
    type: "object",
    description: "Represents a JSON-RPC request for the `tasks/list` method.",
    properties: {
      id: { type: ["string", "integer"] },
      jsonrpc: { const: "2.0", type: "string" },
      method: { const: "tasks/list", type: "string" },
      params: { $ref: "#/definitions/ListTasksParams" },
    },
    required: ["id", "jsonrpc", "method", "params"],
  };
  d.ListTasksSuccessResponse = {
    type: "object",
    properties: {
      id: { type: ["string", "integer", "null"] },
      jsonrpc: { const: "2.0", type: "string" },
      result: { type: "array", items: { $ref: "#/definitions/Task" } },
    },
    required: ["id", "jsonrpc", "result"],
  };
  d.ListTasksResponse = { anyOf: [{ $ref: "#/definitions/JSONRPCErrorResponse" }, { $ref: "#/definitions/ListTasksSuccessResponse" }] };
  (d.A2ARequest?.anyOf as Json[]).push({ $ref: "#/definitions/ListTasksRequest" });
  (d.JSONRPCResponse?.anyOf as Json[]).push({ $ref: "#/definitions/ListTasksSuccessResponse" });
}

export function addAudioPart(d: Record<string, JsonObject>): void {
  d.AudioPart = {
    type: "object",
    description: "An audio segment.",
    properties: {
      kind: { const: "audio", type: "string" },
      audio: { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] },
      metadata: { type: "object", additionalProperties: {} },
    },
    required: ["kind", "audio"],
  };
  (d.Part?.anyOf as Json[]).push({ $ref: "#/definitions/AudioPart" });
}
