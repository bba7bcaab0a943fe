// The page of the client-only browser test: the bundled client-only client calls the agent that served the
// page, over JSON-RPC and HTTP+JSON, unary and streaming, then with the opt-in schema checks; what it saw
// goes to `window.clientResult` (or the error to `window.clientError`).
import { A2AClient, A2ATaskNotFoundError, restTransport } from "client-only-output/client.js";
import { clientValidation } from "client-only-output/client-validation.js";

declare global {
  interface Window {
    clientResult?: Record<string, unknown>;
    clientError?: string;
  }
}

async function run(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    const client = await A2AClient.fromAgentUrl(location.origin, { transports: [restTransport], binding });
    const reply = A2AClient.unwrap(await client.sendMessage(A2AClient.sendParams("hello")));
    const states: string[] = [];
    let text = "";
    for await (const event of client.sendStreamingMessage(A2AClient.sendParams("a story"))) {
      const item = A2AClient.unwrap(event) as { status?: { state?: string }; artifact?: { parts?: Array<{ text?: string }> } };
      if (item.status?.state !== undefined) states.push(item.status.state);
      for (const part of item.artifact?.parts ?? []) text += part.text ?? "";
    }
    let typedError = "";
    try {
      await client.getTask({ id: "no-such-task" });
    } catch (error) {
      typedError = error instanceof A2ATaskNotFoundError ? "A2ATaskNotFoundError" : String(error);
    }
    out[binding] = { binding: client.transport.binding, reply: JSON.stringify(reply), states, text, typedError };
  }
  const validated = await A2AClient.fromAgentUrl(location.origin, { validation: clientValidation });
  out["validated"] = JSON.stringify(A2AClient.unwrap(await validated.sendMessage(A2AClient.sendParams("hello"))));
  return out;
}

run().then(
  (result) => (window.clientResult = result),
  (error: unknown) => (window.clientError = error instanceof Error ? `${error.name}: ${error.message}` : String(error)),
);
