// One server of the bindings bench, in its own process (forked by bench/server-bindings.bench.mjs).
//
//   node bench/server-bindings-target.mjs <target> <build-dir>
//
// <target>: rest (the generated A2A 1.0.1 server's HTTP+JSON binding on the node:http adapter), grpc (the
// same core through serveGrpc), sdk-rest (@a2a-js/sdk 1.3's Express restHandler), sdk-grpc (its grpc-js
// service). <build-dir>: the generated 1.0.1 output with gRPC, compiled to JavaScript by the parent.
// The agent: "hello" → a direct reply; "task" → working, one artifact, completed.
// IPC: → {type:"ready", port}; ← {type:"cpu"} → {type:"cpu", ...cpuUsage()}; ← {type:"stop"} → exits.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [target, buildDir] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(join(buildDir, file)).href);
const card = (binding, url) => ({
  name: "Bench agent",
  description: "The bindings bench's agent",
  supportedInterfaces: [{ url, protocolBinding: binding, protocolVersion: "1.0" }],
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["test"] }],
});

const executor = {
  async execute(ctx, events) {
    if (ctx.text.trim() === "hello") return events.reply("hello back");
    events.working("on it");
    events.artifact({ artifactId: "result", name: "result", parts: [events.textPart("the result")] });
    events.completed("done");
  },
};

async function sdkParts() {
  const sdk = await import("a2a-sdk-v1");
  const server = await import("a2a-sdk-v1/server");
  const now = () => new Date().toISOString();
  const msg = (text, taskId, contextId) => sdk.Message.fromJSON({ messageId: randomUUID(), role: "ROLE_AGENT", parts: [{ text }], taskId, contextId });
  const sdkExecutor = {
    async execute(ctx, bus) {
      const { taskId, contextId, userMessage } = ctx;
      const text = (userMessage.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("").trim();
      if (text === "hello") {
        bus.publish(server.AgentEvent.message(msg("hello back", undefined, contextId)));
        bus.finished();
        return;
      }
      bus.publish(server.AgentEvent.task({ id: taskId, contextId, status: { state: sdk.TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined }, artifacts: [], history: [userMessage], metadata: undefined }));
      const status = (state, text) => bus.publish(server.AgentEvent.statusUpdate({ taskId, contextId, status: { state, timestamp: now(), message: text ? msg(text, taskId, contextId) : undefined }, metadata: undefined }));
      status(sdk.TaskState.TASK_STATE_WORKING, "on it");
      bus.publish(server.AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: "result", name: "result", description: "", parts: [sdk.Part.fromJSON({ text: "the result" })], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
      status(sdk.TaskState.TASK_STATE_COMPLETED, "done");
      bus.finished();
    },
    async cancelTask() {},
  };
  return { sdk, server, sdkExecutor };
}

/** The floors' canned answers (ProtoJSON; the task's shape is what the agent's "task" run ends with). */
function canned(text) {
  const now = new Date().toISOString();
  const agent = (t, extra = {}) => ({ messageId: randomUUID(), role: "ROLE_AGENT", parts: [{ text: t }], ...extra });
  if (text.trim() === "hello") return { message: agent("hello back", { contextId: randomUUID() }) };
  const taskId = randomUUID();
  const contextId = randomUUID();
  return {
    task: {
      id: taskId,
      contextId,
      status: { state: "TASK_STATE_COMPLETED", timestamp: now, message: agent("done", { taskId, contextId }) },
      artifacts: [{ artifactId: "result", name: "result", parts: [{ text: "the result" }] }],
      history: [{ messageId: "m", role: "ROLE_USER", parts: [{ text }], taskId, contextId }, agent("on it", { taskId, contextId })],
    },
  };
}

let port;
if (target === "bare-rest") {
  const http = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const text = (body.message?.parts ?? []).map((p) => p.text ?? "").join("");
      const out = JSON.stringify(canned(text));
      res.writeHead(200, { "content-type": "application/a2a+json", "content-length": Buffer.byteLength(out) });
      res.end(out);
    });
  });
  port = await new Promise((resolve) => http.listen(0, "127.0.0.1", () => resolve(http.address().port)));
} else if (target === "bare-grpc") {
  const { A2A_GRPC_BINDING } = await load("grpc.js");
  const protobuf = (await import("protobufjs/light.js")).default;
  const grpc = (await import("@grpc/grpc-js")).default;
  const root = protobuf.Root.fromJSON(A2A_GRPC_BINDING.proto);
  const Request = root.lookupType("lf.a2a.v1.SendMessageRequest");
  const Response = root.lookupType("lf.a2a.v1.SendMessageResponse");
  // protobufjs's own ProtoJSON-ish conversion (enums and Timestamps aside): the least a server does per call.
  const toWire = (answer) => {
    const m = (x) => x && { message_id: x.messageId, role: x.role === "ROLE_USER" ? 1 : 2, parts: x.parts, context_id: x.contextId, task_id: x.taskId };
    if (answer.message) return { message: m(answer.message) };
    const t = answer.task;
    const seconds = Math.floor(Date.now() / 1000);
    return { task: { id: t.id, context_id: t.contextId, status: { state: 3, timestamp: { seconds, nanos: 0 }, message: m(t.status.message) }, artifacts: t.artifacts.map((a) => ({ artifact_id: a.artifactId, name: a.name, parts: a.parts })), history: t.history.map(m) } };
  };
  // The server options serveGrpc uses.
  const g = new grpc.Server({ "grpc.max_receive_message_length": 1024 * 1024, "grpc.max_send_message_length": -1 });
  g.addService(
    {
      SendMessage: {
        path: `/${A2A_GRPC_BINDING.service}/SendMessage`,
        requestStream: false,
        responseStream: false,
        requestSerialize: (v) => v,
        requestDeserialize: (b) => b,
        responseSerialize: (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength),
        responseDeserialize: (b) => b,
      },
    },
    {
      SendMessage: (call, callback) => {
        const request = Request.toObject(Request.decode(call.request), { enums: String, defaults: false });
        const text = (request.message?.parts ?? []).map((p) => p.text ?? "").join("");
        callback(null, Response.encode(Response.fromObject(toWire(canned(text)))).finish());
      },
    },
  );
  port = await new Promise((resolve, reject) => g.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
} else if (target === "rest") {
  const core = await load("server/core.js");
  const node = await load("server/node.js");
  const http = node.createNodeServer(core.createA2AServer({ card: card("HTTP+JSON", "http://127.0.0.1:1/rest"), executor }));
  port = await new Promise((resolve) => http.listen(0, "127.0.0.1", () => resolve(http.address().port)));
} else if (target === "grpc") {
  const core = await load("server/core.js");
  const grpc = await load("server/grpc.js");
  const server = core.createA2AServer({ card: card("GRPC", "127.0.0.1:1"), executor, transports: ["GRPC"] });
  port = (await grpc.serveGrpc(server, { port: 0 })).port;
} else if (target === "sdk-rest") {
  const { sdk, server, sdkExecutor } = await sdkParts();
  const { restHandler, UserBuilder } = await import("a2a-sdk-v1/server/express");
  const express = (await import("express")).default;
  const app = express();
  const handler = new server.DefaultRequestHandler(sdk.AgentCard.fromJSON(card("HTTP+JSON", "http://127.0.0.1:1/rest")), new server.InMemoryTaskStore(), sdkExecutor);
  app.use("/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const http = createServer(app);
  port = await new Promise((resolve) => http.listen(0, "127.0.0.1", () => resolve(http.address().port)));
} else if (target === "sdk-grpc") {
  const { sdk, server, sdkExecutor } = await sdkParts();
  const { A2AService, grpcService, UserBuilder } = await import("a2a-sdk-v1/server/grpc");
  const grpc = (await import("@grpc/grpc-js")).default;
  const handler = new server.DefaultRequestHandler(sdk.AgentCard.fromJSON(card("GRPC", "127.0.0.1:1")), new server.InMemoryTaskStore(), sdkExecutor);
  const g = new grpc.Server();
  g.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  port = await new Promise((resolve, reject) => g.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
} else {
  throw new Error(`unknown target ${target}`);
}
for (const level of ["log", "info", "warn", "error"]) console[level] = () => undefined;
process.on("message", (m) => {
  if (m.type === "cpu") process.send({ type: "cpu", ...process.cpuUsage() });
  if (m.type === "stop") process.exit(0);
});
process.send({ type: "ready", port });
