// Type probes for the generated 1.0.1 client (issue 13): method names from the IR method, unwrap typed
// from the results, builders typed without casts. Every @ts-expect-error line must fail to compile (an
// unused one is itself an error), every other line must compile. Checked by test/product/compile.test.ts.
import {
  A2AClient,
  type A2AClientOptions,
  type Message,
  type ResultOf,
  type SendMessageRequest,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatusUpdateEvent,
  type Unwrapped,
} from "../../generated/a2a-1.0.1/index.js";
import { cardSignatureVerifier } from "../../src/runtime/card/signature.js";

declare const client: A2AClient;
declare const sent: ResultOf<"SendMessage">;
declare const event: ResultOf<"SendStreamingMessage">;

async function probes(): Promise<void> {
  // One rule for every version: the 1.0.1 rpc SendMessage is sendMessage, as 0.3.0's message/send is.
  const reply: ResultOf<"SendMessage"> = await client.sendMessage(A2AClient.sendParams("hi"));
  const task: Task = await client.getTask({ id: "t" });
  // @ts-expect-error no Rpc suffix any more
  await client.sendMessageRpc(A2AClient.sendParams("hi"));
  // @ts-expect-error no Rpc suffix any more
  client.subscribeToTaskRpc({ id: "t" });

  // unwrap keeps the result's type: a SendMessage result is a task or a message...
  const unwrapped: Task | Message = A2AClient.unwrap(sent);
  // @ts-expect-error ...never a status update
  const notAnUpdate: TaskStatusUpdateEvent = A2AClient.unwrap(sent);
  // a stream event is one of the four.
  const streamed: Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent = A2AClient.unwrap(event);
  // @ts-expect-error a stream event is not only a task
  const onlyTask: Task = A2AClient.unwrap(event);
  const exact: Unwrapped<{ task: Task }> = task;
  // An empty result (google.protobuf.Empty) stays what it is.
  const empty: Unwrapped<ResultOf<"DeleteTaskPushNotificationConfig">> = {};

  // sendParams is typed as the method's params without a cast.
  const params: SendMessageRequest = A2AClient.sendParams("hi", { contextId: "c" });
  // @ts-expect-error a message has no sendParams-only options
  A2AClient.userMessage("hi", { blocking: true });

  // Binding options and the card verifier plug in with their types.
  const options: A2AClientOptions = { binding: "JSONRPC", verifyCard: cardSignatureVerifier({ jwks: { keys: [] } }), trustedOrigins: ["https://a.example"] };
  // @ts-expect-error not a binding of the cards
  const wrong: A2AClientOptions = { binding: "SOAP" };
  void [reply, unwrapped, notAnUpdate, streamed, onlyTask, exact, empty, params, options, wrong];
}
void probes;
