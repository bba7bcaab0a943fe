/**
 * Reading an agent's metrics back in tests: a metric reader collected when the test wants, and the
 * metrics of a2a-codegen's instrumentation scope it holds.
 */
import { MetricReader, type MetricData } from "@opentelemetry/sdk-metrics";

/** A metric reader the test collects from when it wants. */
export class ManualReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The metrics `reader` collects now under a2a-codegen's instrumentation scope. */
export async function collected(reader: MetricReader): Promise<MetricData[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics.filter((s) => s.scope.name === "a2a-codegen").flatMap((s) => s.metrics);
}
