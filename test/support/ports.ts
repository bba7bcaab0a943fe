/**
 * Ports for servers whose agent card must name its ports before they are bound (a card lists its
 * interfaces' URLs, the core is made with the card, then the servers listen).
 *
 * A port probed free and released can be taken before the server binds it, by a test running beside
 * (its outgoing connections take ephemeral ports). So: ports are picked below the kernel's ephemeral
 * range (no outgoing connection takes them), and a start that still meets EADDRINUSE is retried on new ports.
 */
import { createServer, type Server } from "node:net";

const LOW = 20_000;
const HIGH = 32_000; // Linux's ephemeral range starts at 32768 by default.

/** A port that was free on 127.0.0.1 a moment ago, picked outside the ephemeral range. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Whether an error says that an address was in use (node's code, or grpc-js's message, which wraps it). */
export function isAddressInUse(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "EADDRINUSE" || (typeof message === "string" && message.includes("EADDRINUSE"));
}

/**
 * Runs `start` with `count` free ports; when it fails with an address in use (it must have closed what it
 * opened), runs it again with new ports, up to `attempts` times. Any other error is thrown as it is.
 */
export async function withFreePorts<T>(count: number, start: (ports: number[]) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const ports: number[] = [];
    while (ports.length < count) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }
    try {
      return await start(ports);
    } catch (error) {
      if (!isAddressInUse(error) || attempt >= attempts) throw error;
    }
  }
}

/** Listens on 127.0.0.1:`port` (an http.Server too); rejects when the port is taken (EADDRINUSE). */
export function listenOn(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
}
