// The kit's client suite through the generated MSW handlers (msw 2, Node): the client makes real requests
// (no `fetch` option: node:http, as in a user's test), MSW intercepts them and the mock agent answers (issue 32).
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe } from "vitest";
import { clientSuite } from "./client-suite.js";
import { generateKit, type Kit } from "./generated-kit.js";

let kit: Kit;
const server = setupServer();
beforeAll(async () => {
  kit = await generateKit();
  server.listen({ onUnhandledRequest: "error" });
}, 120_000);
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe("the client against MockAgent through MSW", () => {
  clientSuite(
    () => kit,
    async (mock, binding) => {
      server.use(...(kit.msw.mockAgentHandlers(mock) as Parameters<typeof server.use>));
      return kit.client["A2AClient"].fromAgentUrl(kit.msw.TEST_AGENT_ORIGIN, { transports: [kit.client["restTransport"]], binding });
    },
  );
});
