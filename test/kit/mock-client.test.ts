// The kit's client suite through the mock agent's own fetch: no sockets, no MSW (issue 32).
import { beforeAll, describe } from "vitest";
import { clientSuite } from "./client-suite.js";
import { generateKit, type Kit } from "./generated-kit.js";

let kit: Kit;
beforeAll(async () => {
  kit = await generateKit();
}, 120_000);

describe("the client against MockAgent (fetch)", () => {
  clientSuite(() => kit, (mock, binding) => mock.client({ binding }));
});
