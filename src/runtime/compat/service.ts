/**
 * Serving a second, older version from the same agent (docs/compat.md): an A2AService for the compat
 * version (0.3.0) that validates a request against that version's schema, converts its params to the
 * primary version's (1.0.1) with the mapping interpreter (compat/converter.ts), runs them on the primary service
 * (one executor, one task store, one runtime), and converts its result, every streamed event and every
 * error back. Because it is an A2AService, every binding serves it as it serves the primary one: the
 * JSON-RPC binding picks one of the two per request with `route` (compat/route.ts: the A2A-Version header,
 * absent meaning 0.3 per 1.0.1 §3.2.6, and the method name); the HTTP+JSON binding serves each version's
 * routes (0.3's under `/v1/`), a path both have going to the version the A2A-Version header names; gRPC
 * serves each version's service (0.3 `a2a.v1.A2AService`, 1.0 `lf.a2a.v1.A2AService`) on one port. Push configs a compat client registers are
 * stored with its version, and their notifications carry the compat version's payload (`pushPayload`).
 *
 * Copied into the output only with `generate --compat`; the generated server/core.ts builds it.
 */
import { A2AError } from "../a2a-error.js";
import { compatWireCard, dualCard, unservedCompatInterfaces } from "./card.js";
import { routeByVersion } from "./route.js";
import { VersionConverter, type Loss, type MethodMapping, type VersionMapping } from "./converter.js";
import { JSON_RPC_ERROR } from "../wire/jsonrpc.js";
import { isObject, type JsonObject } from "../json.js";
import { majorMinor, PUSH_CONFIG_VERSION_FIELD } from "../profile.js";
import type { SecondVersion } from "../http/server.js";
import { A2AService, raisedError, requestedVersion, type ProtocolBinding, type ServiceOptions } from "../service/service.js";
import { versionRefusal } from "../service/version-refusal.js";
import type { CallContext } from "../call.js";
import type { PushPayloadHook } from "../tasks/push-configs.js";
import { modeWarnings } from "../tasks/input-modes.js";

/** What the generated code knows of the compat version: its protocol binding and the mapping. */
export interface CompatVersion {
  /** The compat version's profile, methods and validators (compat/a2a-<version>/protocol.ts, validators.ts). */
  readonly binding: ProtocolBinding;
  /** The derived mapping (compat/a2a-<version>/mapping.ts). */
  readonly mapping: VersionMapping;
  /** The agent card in the compat version's shape (e.g. compat/a2a-<version>/card.ts): its security schemes are served in both shapes. */
  readonly card?: object;
  /** The extended card in the compat version's shape, likewise. */
  readonly extendedCard?: object;
  /** Receives what a conversion could not carry over (a 0.3 field 1.0 has no place for, ...); by default dropped. */
  readonly onLoss?: (loss: Loss) => void;
  /** Whether the output serves this version over gRPC too (generated with `--transports grpc`: server/grpc.ts serves its service beside the primary's). */
  readonly grpc?: boolean;
}

/** Builds the second version a server serves (ServerOptions.compat). */
export function serveCompat(version: CompatVersion): SecondVersion {
  const converter = new VersionConverter(version.mapping, version.onLoss ? { onLoss: version.onLoss } : {});
  return {
    version: majorMinor(version.mapping.compat),
    pushPayload: compatPushPayload(version.mapping, converter),
    serve(primary, options, offered) {
      const service = new CompatService(primary, version, options, compatBindings(version, offered));
      return { service, route: versionRouter(primary, service), restFirst: (request) => restFirst(primary, request), bindings: service.bindings };
    },
  };
}

/** Of the bindings the primary version is served on, those the compat version has too (HTTP+JSON: routes from its proto; gRPC: generated). */
export function compatBindings(version: CompatVersion, offered: readonly string[]): string[] {
  return offered.filter((b) => b === "JSONRPC" || (b === "HTTP+JSON" && version.binding.httpRoutes !== undefined) || (b === "GRPC" && version.grpc === true));
}

/**
 * The push payload of a config a compat client registered: the Task in the compat version's shape, as
 * application/json (0.3 §9.5: the Task is the payload). Configs of primary clients keep the primary's.
 */
export function compatPushPayload(mapping: VersionMapping, converter: VersionConverter): PushPayloadHook {
  const version = majorMinor(mapping.compat);
  return (config, task) => (config[PUSH_CONFIG_VERSION_FIELD] === version ? { body: converter.object("Task", "toCompat", task) } : undefined);
}

/**
 * Which service answers a JSON-RPC request: the primary or the compat one, by `routeByVersion`. An
 * unknown A2A-Version is VersionNotSupportedError listing the versions served; a method of the other
 * version than the request says (`message/send` with `A2A-Version: 1.0`) an invalid request naming both.
 */
export function versionRouter(primary: A2AService, compat: CompatService): (ctx: CallContext, method: string) => A2AService | A2AError {
  return (ctx, method) => {
    const header = versionHeader(primary, ctx.headers, ctx.request?.query);
    const route = routeByVersion(compat.mapping, { header, method });
    if ("version" in route) return route.version === "primary" ? primary : compat;
    if (route.error === "versionNotSupported") {
      const code = primary.runtime.code("VersionNotSupported", JSON_RPC_ERROR.invalidRequest);
      return primary.publicError(new A2AError(code, route.message, { supported: route.supported, requested: header ?? null }));
    }
    // In the form of the version the request says it speaks.
    const said = header === undefined || header.trim() === "" ? compat : majorMinor(header.trim()) === majorMinor(primary.profile.specVersion) ? primary : compat;
    return said.publicError(new A2AError(JSON_RPC_ERROR.invalidRequest, route.message, { method }));
  };
}

/**
 * Whose HTTP+JSON routes a request tries first: a missing A2A-Version (0.3, 1.0.1 §3.2.6) or a 0.x one
 * (an older client, answered in the compat version's error form if it is not served) the compat
 * version's; any other version the primary's.
 */
function restFirst(primary: A2AService, request: { readonly headers: CallContext["headers"]; readonly query: URLSearchParams | undefined }): "compat" | "primary" {
  const asked = (versionHeader(primary, request.headers, request.query) ?? "").trim();
  return asked === "" || asked.startsWith("0.") ? "compat" : "primary";
}

/** The A2A-Version a call names (header, or query parameter), if any. */
function versionHeader(primary: A2AService, headers: CallContext["headers"], query: URLSearchParams | undefined): string | undefined {
  return requestedVersion(primary.profile.versionHeader ?? "A2A-Version", headers, query);
}

/**
 * A startup warning for each mode of the compat version's card that is not a media type (1.0.1 §4.4.1;
 * 0.3.0 §5.5: "supported media types"), as the primary card's are warned of by its task runtime: a card a
 * user passes (`compat: { card }`) is theirs to fix. A mode the primary card has at the same place is
 * warned of once, by the primary (the generated compat card is the primary's, converted).
 */
function warnCompatModes(card: object | undefined, version: string, options: ServiceOptions): void {
  const known = new Set(modeWarnings(options.card));
  const warn = options.logger ? (m: string) => options.logger?.warn?.(m) : (m: string) => console.warn(m);
  for (const warning of modeWarnings(card)) if (!known.has(warning)) warn(`a2a: ${warning.replace(/^agent card /, `agent card (its ${version} form) `)}`);
}

/** The compat version's A2A service: its own methods and validators, the primary's runtime. */
export class CompatService extends A2AService {
  readonly converter: VersionConverter;
  readonly mapping: VersionMapping;
  /** The primary version's service, which runs every call. */
  readonly primary: A2AService;
  /** The bindings this version is served on (its dual card lists each): "JSONRPC", "HTTP+JSON", "GRPC". */
  readonly bindings: readonly string[];
  private readonly compatCard: JsonObject | undefined;
  private readonly compatExtendedCard: JsonObject | undefined;

  constructor(primary: A2AService, version: CompatVersion, options: ServiceOptions, bindings: readonly string[] = ["JSONRPC"]) {
    const rule = version.mapping.card;
    const card = rule ? dualCard(rule, options.card as JsonObject, version.card as JsonObject | undefined, bindings) : (options.card as JsonObject);
    if (rule) {
      // The startup check of the card's interfaces, for the compat form too: each binding it lists is served in the compat version.
      const unserved = unservedCompatInterfaces(rule, card, bindings);
      if (unserved.length > 0) {
        const first = unserved[0] as { binding: string; url: string | undefined };
        throw new Error(
          `the agent card's ${version.mapping.compat} form lists a ${first.binding || "nameless"} interface (${first.url ?? "no url"}) that is not served to ${majorMinor(version.mapping.compat)} clients ` +
            `(served to them: ${bindings.join(", ") || "none"}): serve that binding in both versions, or remove it from the card`,
        );
      }
    }
    // Errors only the primary defines that this service raises too (VersionNotSupportedError, -32009, for a
    // request of another version) get the primary's statuses (HTTP 400, FAILED_PRECONDITION), not a 500.
    const own = version.binding.errorStatus;
    const binding = own && primary.binding.errorStatus ? { ...version.binding, errorStatus: { ...primary.binding.errorStatus, ...own } } : version.binding;
    // The compat service runs nothing itself: the runtime (executor, stores, push sender) is the primary's.
    super(binding, { ...options, card, runtime: primary.runtime });
    this.primary = primary;
    this.mapping = version.mapping;
    this.compatCard = version.card as JsonObject | undefined;
    warnCompatModes(version.card, version.mapping.compat, options);
    this.bindings = bindings;
    const extended = version.extendedCard as JsonObject | undefined;
    this.compatExtendedCard = extended;
    this.converter = new VersionConverter(version.mapping, {
      hooks: { card: (value) => (rule && isObject(value) ? dualCard(rule, value, extended, bindings) : value) },
      ...(version.onLoss ? { onLoss: version.onLoss } : {}),
    });
  }

  /**
   * The card both versions' clients read, made from the primary's card when asked: a server that learns
   * its address after it was created (port 0) and writes it into the card's interfaces serves it here too.
   */
  override get card(): JsonObject {
    const rule = this.mapping.card;
    return rule ? dualCard(rule, this.primary.card, this.compatCard, this.bindings) : this.primary.card;
  }

  /**
   * The extensions are the primary card's (the dual card carries the same list): a call's check need not
   * build the dual card.
   */
  protected override get extensionsCard(): JsonObject {
    return this.primary.card;
  }

  /** Credentials are the primary's concern: one set of security schemes for both versions. */
  override get requiresAuth(): boolean {
    return this.primary.requiresAuth;
  }

  override authenticate(ctx: CallContext): Promise<unknown> {
    return this.primary.authenticate(ctx);
  }

  /**
   * Only compat requests reach this service: a missing A2A-Version (§3.2.6) or the compat version's. Another
   * version is refused naming the versions the agent serves (`versionRefusal`): the primary's, asked where
   * only the compat version has the call (0.3's `GET /v1/card` with `A2A-Version: 1.0`), says so.
   */
  override negotiate(ctx: CallContext): void {
    const name = this.primary.profile.versionHeader ?? "A2A-Version";
    const header = versionHeader(this.primary, ctx.headers, ctx.request?.query);
    const route = routeByVersion(this.mapping, { header, method: undefined });
    if ("version" in route && route.version === "compat") return;
    const read = "version" in route ? majorMinor(this.mapping.primary) : majorMinor(String(header).trim());
    const refusal = versionRefusal(name, header, read, majorMinor(this.mapping.compat), [majorMinor(this.mapping.primary), majorMinor(this.mapping.compat)], ctx);
    throw this.publicError(
      new A2AError(this.primary.runtime.code("VersionNotSupported", JSON_RPC_ERROR.invalidRequest), refusal.message, { supported: refusal.supported, requested: header ?? null }),
    );
  }

  override async invoke(method: string, params: unknown, ctx: CallContext, principal: unknown): Promise<unknown> {
    const pair = this.converter.method(method);
    // A custom method (ServerOptions.methods) is the same in both versions.
    if (!pair) return this.relay(() => this.primary.invoke(method, params, this.forPrimary(ctx), principal));
    // The extended card involves no task: this service answers it by its own version's rules (0.3: an
    // agent without one is AuthenticatedExtendedCardNotConfiguredError), converting the card it holds.
    if (pair.role === "extendedCard") {
      const card = this.converter.result(method, "toCompat", await super.invoke(method, params, ctx, principal));
      // On the compat proto's wire (HTTP+JSON, gRPC) its security schemes in its own form only.
      return ctx.binding === "JSONRPC" || !this.mapping.card || !isObject(card) ? card : compatWireCard(this.mapping.card, card, this.compatExtendedCard);
    }
    const converted = this.toPrimary(pair, params);
    const result = await this.relay(() => this.primary.invoke(pair.primary, converted, this.forPrimary(ctx), principal));
    return this.converter.result(method, "toCompat", result);
  }

  override async openStream(method: string, params: unknown, ctx: CallContext, principal: unknown): Promise<AsyncIterable<unknown>> {
    const pair = this.converter.method(method);
    if (!pair) throw this.publicError(new A2AError(JSON_RPC_ERROR.methodNotFound, `Method not found: ${method}`, { method }));
    const converted = this.toPrimary(pair, params);
    const events = await this.relay(() => this.primary.openStream(pair.primary, converted, this.forPrimary(ctx), principal));
    return this.translated(method, events);
  }

  /**
   * The call as the primary service reads it, once this version's required extensions are there: the extensions a client of this version activated in its own
   * header (0.3: X-A2A-Extensions) are carried in the primary's (1.0: A2A-Extensions), so that the primary's
   * required-extension check and the executor see them; the primary's header as such is not this version's.
   */
  private forPrimary(ctx: CallContext): CallContext {
    // Required extensions are checked first in this version's own terms (its header, its error).
    this.extensions(ctx);
    const ours = this.profile.extensionsHeader?.toLowerCase();
    const theirs = this.primary.profile.extensionsHeader?.toLowerCase();
    if (ours === undefined || theirs === undefined || ours === theirs) return ctx;
    return { ...ctx, headers: { ...ctx.headers, [theirs]: ctx.headers[ours] } };
  }

  /** The primary closes the runtime both run on. */
  override close(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Each event of a primary stream in the compat shape; an error the stream ends with too. Not an async
   * generator: `return()` (a client that went away) reaches the primary stream at once, even while a
   * `next()` waits for an event, so that its bus subscription is released then, not at the next event.
   */
  private translated(method: string, events: AsyncIterable<unknown>): AsyncIterable<unknown> {
    const convert = (event: unknown) => this.converter.result(method, "toCompat", event);
    const fail = (error: unknown) => (error instanceof A2AError ? this.compatError(error) : error);
    return {
      [Symbol.asyncIterator]: (): AsyncIterator<unknown> => {
        const inner = events[Symbol.asyncIterator]();
        return {
          next: async () => {
            try {
              const step = await inner.next();
              return step.done ? step : { done: false, value: convert(step.value) };
            } catch (error) {
              throw fail(error);
            }
          },
          return: async () => {
            await inner.return?.();
            return { done: true, value: undefined };
          },
        };
      },
    };
  }

  /**
   * The params in the primary shape, checked against the primary's schema (a value the compat version
   * allows and the primary cannot hold is refused here, not deep in the runtime). A push config gets the
   * compat version recorded, so that its notifications are sent in the compat shape.
   */
  private toPrimary(pair: MethodMapping, params: unknown): unknown {
    const converted = this.converter.params(pair.compat, "toPrimary", params);
    try {
      this.primary.validate(pair.primary, converted);
    } catch (error) {
      throw error instanceof A2AError ? this.compatError(error) : error;
    }
    if (!isObject(converted)) return converted;
    const version = majorMinor(this.mapping.compat);
    if (pair.role === "pushSet") return { ...converted, [PUSH_CONFIG_VERSION_FIELD]: version };
    const configuration = converted["configuration"];
    if ((pair.role === "send" || pair.role === "stream") && isObject(configuration)) {
      for (const [key, value] of Object.entries(configuration)) {
        // The one push config a send may carry (1.0 `taskPushNotificationConfig`), whatever its field's name.
        if (isObject(value) && typeof value["url"] === "string") {
          return { ...converted, configuration: { ...configuration, [key]: { ...value, [PUSH_CONFIG_VERSION_FIELD]: version } } };
        }
      }
    }
    return converted;
  }

  /** Runs a primary call; its A2A errors come out in the compat shape. */
  private async relay<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw error instanceof A2AError ? this.compatError(error) : error;
    }
  }

  /**
   * A primary error as the compat version writes it: the error as raised (its data not yet in the
   * primary's form, e.g. google.rpc details) published in the compat version's form. The codes are
   * the same in both versions; one only the primary defines (VersionNotSupportedError) reaches a compat
   * client as a plain JSON-RPC error.
   */
  private compatError(error: A2AError): A2AError {
    const raised = raisedError(error);
    return this.publicError(
      new A2AError(raised.code, raised.message, raised.data, {
        ...(raised.http ? { http: raised.http } : {}),
        ...(raised.challenge !== undefined ? { challenge: raised.challenge } : {}),
        ...(raised.retryAfter !== undefined ? { retryAfter: raised.retryAfter } : {}),
      }),
    );
  }
}
