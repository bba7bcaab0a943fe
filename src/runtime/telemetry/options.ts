/** What a user may set of the OpenTelemetry telemetry of a server or client (generated with `--telemetry`). */
import type { MeterProvider, TracerProvider } from "@opentelemetry/api";

export interface TelemetryOptions {
  /** Where spans go; default the global tracer provider (the one an OpenTelemetry SDK registers). */
  tracerProvider?: TracerProvider;
  /** Where metrics go; default the global meter provider. */
  meterProvider?: MeterProvider;
  /**
   * Records the caller on server spans as `a2a.principal`: the value to record for the auth verifier's
   * principal (e.g. its subject), or undefined for none. Default: the caller is not recorded.
   */
  recordPrincipal?: (principal: unknown) => string | undefined;
}
