// The SSE client of the server benchmarks (bench/server.bench.mjs's SSE row, bench/server-ab.mjs's sse
// payload): one message/stream request read to its end, its events counted (blank-line separated
// blocks) without parsing them.
import { request as httpRequest } from "node:http";

/** POSTs `body` (a message/stream request) and resolves with the number of SSE events of the answer. */
export function oneStream(url, agent, body) {
  return new Promise((resolve, reject) => {
    const headers = { "content-type": "application/json", accept: "text/event-stream", "content-length": Buffer.byteLength(body) };
    const req = httpRequest(url, { method: "POST", agent, headers }, (res) => {
      if (res.statusCode !== 200 || !String(res.headers["content-type"]).startsWith("text/event-stream")) {
        res.resume();
        reject(new Error(`stream answered ${res.statusCode} ${res.headers["content-type"]}`));
        return;
      }
      res.setEncoding("latin1");
      let events = 0;
      let endsInNewline = false; // a blank line may straddle two chunks
      res.on("data", (chunk) => {
        if (endsInNewline && chunk[0] === "\n") events++;
        for (let at = chunk.indexOf("\n\n"); at >= 0; at = chunk.indexOf("\n\n", at + 2)) events++;
        endsInNewline = chunk.endsWith("\n") && !chunk.endsWith("\n\n");
      });
      res.on("end", () => resolve(events));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
