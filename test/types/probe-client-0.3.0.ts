// Type probes for the generated 0.3.0 client (issue 13): see probe-client-1.0.1.ts.
import { A2AClient, type Message, type ResultOf, type Task, type TaskStatusUpdateEvent, type MessageSendParams } from "../../generated/a2a-0.3.0/index.js";

declare const client: A2AClient;
declare const sent: ResultOf<"message/send">;

async function probes(): Promise<void> {
  const reply: Task | Message = await client.sendMessage(A2AClient.sendParams("hi"));
  // 0.x results are not wrapped: unwrap is the identity, typed so.
  const same: Task | Message = A2AClient.unwrap(sent);
  // @ts-expect-error a message/send result is never a status update
  const update: TaskStatusUpdateEvent = A2AClient.unwrap(sent);
  const params: MessageSendParams = A2AClient.sendParams("hi");
  // @ts-expect-error methods are named from the operation, not the wire path
  client.messageSend(params);
  void [reply, same, update];
}
void probes;
