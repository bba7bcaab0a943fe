// The page of the browser test (bundled by browser.test.ts with the generated 1.0.1 output): the client
// suite's cases, run in Chromium through MSW's service worker (setupWorker) and the mock agent.
// "kit/" is the generated output's folder (the bundler's alias).
import { setupWorker } from "msw/browser";
import { A2AClient, A2ATaskNotFoundError, restTransport } from "kit/client.js";
import { MockAgent, fixtures } from "kit/testing/index.js";
import { mockAgentHandlers, TEST_AGENT_ORIGIN } from "kit/testing/msw.js";

async function run(): Promise<string[]> {
  const failures: string[] = [];
  const expect = (ok: boolean, what: string) => {
    if (!ok) failures.push(what);
  };
  const mock = new MockAgent();
  const worker = setupWorker(...mockAgentHandlers(mock));
  await worker.start({ quiet: true, onUnhandledRequest: "bypass" });
  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    mock.reset();
    const client = await A2AClient.fromAgentUrl(TEST_AGENT_ORIGIN, { transports: [restTransport], binding });
    expect(client.transport.binding === binding, `${binding}: the binding chosen`);
    mock.on("SendMessage", { result: { task: fixtures.Task({ id: "b-1" }) } });
    const sent = A2AClient.unwrap(await client.sendMessage(A2AClient.sendParams("hello")));
    expect("id" in sent && sent.id === "b-1", `${binding}: send`);
    const status = (state: "TASK_STATE_WORKING" | "TASK_STATE_COMPLETED") => ({ statusUpdate: fixtures.TaskStatusUpdateEvent({ taskId: "b-1", status: { state } }) });
    mock.on("SendStreamingMessage", { stream: [{ result: status("TASK_STATE_WORKING") }, { result: status("TASK_STATE_COMPLETED"), delayMs: 5 }] });
    let events = 0;
    for await (const event of client.sendStreamingMessage(A2AClient.sendParams("stream"))) if (event.statusUpdate) events++;
    expect(events === 2, `${binding}: stream (${events} events)`);
    mock.on("GetTask", (call) => ({ result: fixtures.Task({ id: call.params.id }) }));
    expect((await client.getTask({ id: "b-2" })).id === "b-2", `${binding}: get`);
    mock.on("CancelTask", { result: fixtures.Task({ id: "b-3", status: { state: "TASK_STATE_CANCELED" } }) });
    expect((await client.cancelTask({ id: "b-3" })).status?.state === "TASK_STATE_CANCELED", `${binding}: cancel`);
    mock.on("GetTask", { error: MockAgent.error("TaskNotFoundError") });
    const error = await client.getTask({ id: "none" }).then(() => undefined, (e: unknown) => e);
    expect(error instanceof A2ATaskNotFoundError, `${binding}: typed error (${String(error)})`);
    expect(mock.calls.every((c) => c.binding === binding), `${binding}: recorded calls`);
  }
  worker.stop();
  return failures;
}

declare global {
  interface Window {
    kitResult?: Promise<string[]>;
  }
}
window.kitResult = run().catch((e: unknown) => [`threw: ${e instanceof Error ? `${e.message}\n${e.stack}` : String(e)}`]);
