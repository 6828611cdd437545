import {
  LicensingError,
  internalError,
  isErrorCode,
  issueMessage,
  rpcEvents,
  rpcMethods,
  type CallContext,
  type ErrorDetails,
  type EventName,
  type EventOf,
  type MethodName,
  type ResponseOf,
  type ServiceName,
} from '../contracts/index.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logging/index.js';
import { settled } from '../process/timeout.js';
import {
  currentRequestId,
  isRequestId,
  metrics,
  runWithRequest,
  secondsSince,
} from '../observability/index.js';
import type { ServedHandlers } from './transport.js';

/**
 * The wire format shared by every transport. Requests and replies always travel as JSON text, so
 * the in-process transport behaves exactly like RabbitMQ (no shared object references, dates as
 * strings, the same validation on both ends). A request is `{method, deadline, call_id, request}`,
 * where `deadline` is the moment the caller's timeout fires, in epoch milliseconds, and `call_id`
 * names the call: the same in every delivery of its message.
 */
type WireReply =
  | { ok: true; result: unknown }
  | {
      ok: false;
      error: { code: string; message: string; status: number; details: ErrorDetails };
    };

export type AnyHandler = (request: unknown, context: CallContext) => Promise<unknown>;
export type HandlerTable = Partial<Record<MethodName, AnyHandler>>;

/**
 * What a transport answers for a service: the service's handlers, and the answer to its health
 * method, the same for every service: its name, `ok`, and the seconds since it began to be served.
 * A table that has a health handler of its own (a stand-in for a service) keeps it.
 */
export function servedTable<S extends ServiceName>(
  service: S,
  handlers: ServedHandlers<S>,
  now: () => number = Date.now,
): HandlerTable {
  const startedAt = now();
  const table: HandlerTable = { ...handlers };
  table[`${service}.health`] ??= async () => ({
    service,
    status: 'ok',
    uptime_seconds: Math.round((now() - startedAt) / 1000),
  });
  return table;
}

/**
 * The request, with its caller's deadline, the id of the call (`callId`: one per call, so a
 * message the broker delivers again carries the same) and the id of the HTTP request it is part
 * of (so the service's log lines name it too).
 */
export function encodeRequest(
  method: MethodName,
  request: unknown,
  deadline: number,
  callId: string,
): string {
  const requestId = currentRequestId();
  return JSON.stringify(
    requestId === undefined
      ? { method, deadline, call_id: callId, request }
      : { method, deadline, call_id: callId, request_id: requestId, request },
  );
}

/** A call's id as the envelope may carry it: what `randomUUID` makes, or any short plain text. */
export function isCallId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value);
}

function isDeadline(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/**
 * The context of one call, handed to its handler. The deadline is absolute, so it means the same
 * in every process as long as their clocks agree (docs/architecture.md).
 */
export class DeadlineContext implements CallContext {
  /** Set when `beforeWrite` refused a write, so the dispatcher can say so in the log. */
  writeRefused = false;

  constructor(
    readonly method: MethodName,
    readonly deadline: number,
    readonly callId: string,
    private readonly now: () => number = Date.now,
  ) {}

  get passed(): boolean {
    return this.now() >= this.deadline;
  }

  beforeWrite(): void {
    if (!this.passed) return;
    this.writeRefused = true;
    throw internalError(`The caller of ${this.method} stopped waiting; nothing more was written.`);
  }
}

function isMethodName(value: unknown): value is MethodName {
  return typeof value === 'string' && Object.hasOwn(rpcMethods, value);
}

function encodeError(error: LicensingError): string {
  const reply: WireReply = {
    ok: false,
    error: {
      code: error.code,
      message: error.message,
      status: error.status,
      details: error.details,
    },
  };
  return JSON.stringify(reply);
}

/**
 * Answers one request: validates it against the method's request schema, runs the handler and
 * encodes the reply. Never throws; every failure becomes an error reply. A request whose caller
 * has already stopped waiting is not run at all: its reply is read by nobody, and running it
 * would change data behind the back of a client that was told INTERNAL_ERROR.
 */
export async function dispatch(
  handlers: HandlerTable,
  text: string,
  logger: Logger,
  /** Told the request's deadline once it is known: a stopping replica waits for it no longer. */
  onDeadline?: (deadline: number) => void,
): Promise<string> {
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return encodeError(new LicensingError('INVALID_REQUEST', 'The RPC request is not JSON.'));
  }
  if (typeof envelope !== 'object' || envelope === null) {
    return encodeError(new LicensingError('INVALID_REQUEST', 'The RPC request is not an object.'));
  }
  // Everything logged from here on names the request, the refusals of the request included.
  const sentId = (envelope as { request_id?: unknown }).request_id;
  const answer = () => answerRequest(handlers, envelope as RequestEnvelope, logger, onDeadline);
  return isRequestId(sentId) ? runWithRequest(sentId, answer) : answer();
}

type RequestEnvelope = {
  method?: unknown;
  deadline?: unknown;
  call_id?: unknown;
  request?: unknown;
};

async function answerRequest(
  handlers: HandlerTable,
  envelope: RequestEnvelope,
  logger: Logger,
  onDeadline: ((deadline: number) => void) | undefined,
): Promise<string> {
  const { method, deadline } = envelope;
  const handler = isMethodName(method) ? handlers[method] : undefined;
  if (!isMethodName(method) || !handler) {
    return encodeError(
      new LicensingError('INVALID_REQUEST', `Unknown RPC method ${String(method)}.`),
    );
  }
  if (!isDeadline(deadline)) {
    return encodeError(
      new LicensingError('INVALID_REQUEST', 'The RPC request carries no valid deadline.'),
    );
  }
  onDeadline?.(deadline);
  // A caller of an earlier version sends no id: its call is then named by this delivery alone.
  const callId = isCallId(envelope.call_id) ? envelope.call_id : randomUUID();
  const context = new DeadlineContext(method, deadline, callId);
  if (context.passed) {
    logger.warn(
      { method, late_ms: Date.now() - deadline },
      'RPC request arrived after its deadline',
    );
    return encodeError(
      internalError(`The caller stopped waiting for ${method} before the request arrived.`),
    );
  }
  const parsed = rpcMethods[method].request.safeParse(envelope.request ?? {});
  if (!parsed.success) {
    return encodeError(
      new LicensingError('INVALID_REQUEST', issueMessage(parsed.error.issues[0], 'request')),
    );
  }
  const started = process.hrtime.bigint();
  let outcome = 'ok';
  try {
    const result = await handler(parsed.data, context);
    return JSON.stringify({ ok: true, result } satisfies WireReply);
  } catch (error) {
    if (context.writeRefused) {
      logger.warn({ method }, 'RPC deadline passed before a write; the call was abandoned');
    }
    if (error instanceof LicensingError) {
      outcome = error.code;
      return encodeError(error);
    }
    outcome = 'INTERNAL_ERROR';
    logger.error({ err: error, method }, 'RPC handler failed');
    return encodeError(internalError());
  } finally {
    const seconds = secondsSince(started);
    metrics.rpcHandlers.observe({ method, outcome }, seconds);
    // Each RPC request a service answers (debug): with the request's id and trace, like the
    // gateway's request line. Built only where it is written.
    if (logger.isLevelEnabled('debug'))
      logger.debug({ method, outcome, duration_ms: Math.round(seconds * 1e6) / 1e3 }, 'rpc');
  }
}

/** Turns a reply into the method's typed result, or throws the error it carries. */
export function decodeReply<M extends MethodName>(method: M, text: string): ResponseOf<M> {
  let reply: WireReply;
  try {
    reply = JSON.parse(text) as WireReply;
  } catch {
    throw internalError(`The reply to ${method} is not JSON.`);
  }
  if (reply.ok === true) {
    const parsed = rpcMethods[method].response.safeParse(reply.result);
    if (!parsed.success) throw internalError(`The reply to ${method} does not match its contract.`);
    return parsed.data as ResponseOf<M>;
  }
  if (reply.ok === false && isErrorCode(reply.error?.code)) {
    const { code, message, status, details } = reply.error;
    throw new LicensingError(code, String(message), { status, details });
  }
  throw internalError(`The reply to ${method} is malformed.`);
}

export function encodeEvent(event: EventName, payload: unknown): string {
  return JSON.stringify({ event, payload });
}

export function decodeEvent<E extends EventName>(event: E, text: string): EventOf<E> | undefined {
  try {
    const envelope = JSON.parse(text) as { event?: unknown; payload?: unknown };
    if (envelope.event !== event) return undefined;
    const parsed = rpcEvents[event].safeParse(envelope.payload);
    return parsed.success ? (parsed.data as EventOf<E>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A stopping transport lets the requests in hand finish and send their replies: it waits for
 * them, but not past the last of their callers' deadlines (nobody reads a later reply, and no
 * handler writes after its deadline), nor longer than `timeoutMs`.
 */
export async function settleInHand(
  inHand: ReadonlyMap<Promise<unknown>, number>,
  timeoutMs: number,
): Promise<void> {
  if (inHand.size === 0) return;
  const lastDeadline = Math.max(...inHand.values());
  const wait = Math.min(Math.max(lastDeadline - Date.now(), 0), timeoutMs);
  await settled(Promise.allSettled([...inHand.keys()]), wait);
}

/** A call its service did not answer in time: INTERNAL_ERROR to the client, `timeout` in metrics. */
export class CallTimeout extends LicensingError {}

export function timeoutError(method: MethodName, timeoutMs: number): LicensingError {
  return new CallTimeout(
    'INTERNAL_ERROR',
    `${rpcMethods[method].service} did not answer ${method} within ${timeoutMs} ms.`,
  );
}
