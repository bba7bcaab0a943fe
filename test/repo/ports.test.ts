/**
 * The test harness's port helper (test/support/ports.ts): servers whose card names their ports bind
 * ports chosen beforehand, and a port taken meanwhile must cost a retry, not a failed CI run.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, isAddressInUse, listenOn, withFreePorts } from "../support/ports.js";


describe("withFreePorts", () => {
  it("picks distinct ports below the ephemeral range that can be bound", async () => {
    const ports = await withFreePorts(3, async (p) => p);
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) expect(port).toBeLessThan(32_768);
    const server = createServer();
    await listenOn(server, ports[0] as number);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("starts again on new ports when a port was taken in between, and gives up after the attempts", async () => {
    const taken = createServer();
    await listenOn(taken, await freePort());
    const takenPort = (taken.address() as { port: number }).port;
    try {
      const tried: number[][] = [];
      // The first attempt meets the taken port (as when a neighbour took it after the probe).
      const bound = await withFreePorts(1, async ([port]) => {
        tried.push([port as number]);
        const server = createServer();
        await listenOn(server, tried.length === 1 ? takenPort : (port as number));
        await new Promise<void>((resolve) => server.close(() => resolve()));
        return port;
      });
      expect(tried.length).toBe(2);
      expect(bound).toBe(tried[1]?.[0]);
      let attempts = 0;
      const always = withFreePorts(1, async () => {
        attempts++;
        await listenOn(createServer(), takenPort);
      }, 3);
      await expect(always).rejects.toSatisfy(isAddressInUse);
      expect(attempts).toBe(3);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it("throws any other error at once; grpc-js's wrapped message counts as in use", async () => {
    let attempts = 0;
    await expect(withFreePorts(1, async () => {
      attempts++;
      throw new Error("boom");
    })).rejects.toThrow("boom");
    expect(attempts).toBe(1);
    expect(isAddressInUse(new Error("No address added out of total 1 resolved errors: [listen EADDRINUSE: address already in use 127.0.0.1:1]"))).toBe(true);
    expect(isAddressInUse(new Error("ECONNREFUSED"))).toBe(false);
  });
});
