import assert from 'node:assert/strict';
import {
  ModelTurnError,
  type ModelCall,
  type ModelPort,
  type ProviderFailure,
} from '../../../src/engine/ports.ts';
import type { FakeProviderServer, RecordedRequest, ScriptedRawReply } from '../../fakes/scripted-reply.ts';
import { WAIT_CAP_MS, withCap } from '../../support/waits.ts';
import { bodyBytes, modelCallFor, type CorpusCase } from './corpus-case.ts';

/** A model port and the name the reports give it. */
export interface NamedPort {
  name: string;
  port: ModelPort;
}

/** The parts of a provider request a port must send the same way. */
export interface WireRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: { 'content-type'?: string; authorization?: string; 'content-encoding'?: string };
  /** The parsed JSON body (the raw text when it is not JSON). */
  body: unknown;
}

export type OutputCall = ['text' | 'thinking', string];

export type CallOutcome =
  | { turn: unknown }
  | { error: { name: string; failure: ProviderFailure; partialText: string; emittedOutput: boolean } }
  | { error: { name: string; message: string } };

/** What a port did with one corpus case, comparable with `deepEqual` (see `comparable`). */
export interface PortCapture {
  requests: WireRequest[];
  outputs: OutputCall[];
  outcome: CallOutcome;
}

const COMPARED_HEADERS = ['content-type', 'authorization', 'content-encoding'] as const;

/** The compared parts of a request the fake recorded. */
export function wireRequest(request: RecordedRequest): WireRequest {
  const headers: WireRequest['headers'] = {};
  for (const name of COMPARED_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  return {
    method: request.method,
    path: request.path,
    headers,
    body: request.body === undefined ? request.rawBody : request.body,
  };
}

function errorOutcome(error: unknown): CallOutcome {
  if (error instanceof ModelTurnError) {
    const { failure, partialText, emittedOutput } = error;
    return { error: { name: error.name, failure: { ...failure }, partialText, emittedOutput } };
  }
  if (error instanceof Error) return { error: { name: error.name, message: error.message } };
  return { error: { name: typeof error, message: String(error) } };
}

/**
 * Values as the engine keeps them: JSON (a key whose value is undefined is no key, as once a turn's
 * response messages are persisted).
 */
function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

export interface CaptureOptions {
  /** Replaces the case's recorded reply (e.g. the same body split differently). */
  reply?: ScriptedRawReply;
  /** Replaces the call built from the case. */
  call?: ModelCall;
}

/**
 * Runs one corpus case through `port` against `fake` (reset first, so the case's reply is the only
 * one and its request the only one recorded), and returns the requests, deltas and outcome.
 */
export async function capture(
  { port, name }: NamedPort,
  fake: FakeProviderServer,
  corpusCase: CorpusCase,
  options: CaptureOptions = {},
): Promise<PortCapture> {
  fake.reset();
  fake.enqueue(options.reply ?? corpusCase.reply);
  const outputs: OutputCall[] = [];
  const controller = new AbortController();
  let outcome: CallOutcome;
  try {
    const call = port.call(options.call ?? modelCallFor(corpusCase, fake.url), controller.signal, {
      onText: (text) => outputs.push(['text', text]),
      onThinking: (text) => outputs.push(['thinking', text]),
    });
    const turn = await withCap(call, WAIT_CAP_MS, () => `${name} did not settle "${corpusCase.name}"`);
    outcome = { turn: asJson(turn) };
  } catch (error) {
    controller.abort();
    outcome = errorOutcome(error);
  }
  await fake.waitUntil(
    () => fake.requests.every((request) => request.respondedAt !== undefined),
    `the replies to ${name} ended`,
  );
  return { requests: fake.requests.map(wireRequest), outputs, outcome };
}

/**
 * The capture with tool-call ids the client made up (ids that are nowhere in the reply's body)
 * replaced by `<generated id N>` in order of first use, wherever they occur: two ports then compare
 * equal when each made up ids of its own but used each one the same way (in the tool call and in the
 * response message). A made-up id must be a non-empty string, different from every other.
 */
export function withGeneratedIdsNamed(captured: PortCapture, reply: ScriptedRawReply): PortCapture {
  if (!('turn' in captured.outcome)) return captured;
  const body = bodyBytes(reply).toString('utf8');
  const turn = captured.outcome.turn as {
    toolCalls?: Array<{ id?: unknown }>;
    responseMessages?: Array<{ content?: unknown }>;
  };
  const used: unknown[] = (turn.toolCalls ?? []).map((call) => call.id);
  for (const message of turn.responseMessages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content as Array<{ type?: string; toolCallId?: unknown }>)
      if (part.type === 'tool-call') used.push(part.toolCallId);
  }
  const names = new Map<string, string>();
  for (const id of used) {
    assert.equal(typeof id, 'string', 'a tool call id is a string');
    const text = id as string;
    if (names.has(text) || body.includes(JSON.stringify(text))) continue;
    assert.notEqual(text.trim(), '', 'a made-up tool call id is not blank');
    names.set(text, `<generated id ${names.size + 1}>`);
  }
  if (names.size === 0) return captured;
  const rename = (value: unknown): unknown => {
    if (typeof value === 'string') return names.get(value) ?? value;
    if (Array.isArray(value)) return value.map(rename);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, rename(entry)]));
    return value;
  };
  return { ...captured, outcome: { turn: rename(turn) } };
}

/** Runs the case through `port` and names its made-up ids. */
export async function comparableCapture(
  port: NamedPort,
  fake: FakeProviderServer,
  corpusCase: CorpusCase,
  options: CaptureOptions = {},
): Promise<PortCapture> {
  const captured = await capture(port, fake, corpusCase, options);
  return withGeneratedIdsNamed(captured, options.reply ?? corpusCase.reply);
}

/** Port B did what port A did: the same requests, the same deltas in order, the same outcome. */
export function assertSameCapture(b: PortCapture, a: PortCapture, label: string): void {
  assert.deepEqual(b.requests, a.requests, `${label}: the request on the wire`);
  assert.deepEqual(b.outputs, a.outputs, `${label}: the text and thinking deltas, in order`);
  assert.deepEqual(b.outcome, a.outcome, `${label}: the completed turn or the error`);
}

/** Runs `corpusCase` through both ports (each against a fresh reply of the fake) and compares. */
export async function assertPortsAgree(
  a: NamedPort,
  b: NamedPort,
  fake: FakeProviderServer,
  corpusCase: CorpusCase,
): Promise<{ a: PortCapture; b: PortCapture }> {
  const fromA = await comparableCapture(a, fake, corpusCase);
  const fromB = await comparableCapture(b, fake, corpusCase);
  assertSameCapture(fromB, fromA, `${b.name} vs ${a.name} on "${corpusCase.name}"`);
  return { a: fromA, b: fromB };
}

/** When a test aborts a call: before it starts, once its request reached the provider, or at its first delta. */
export type AbortPoint = 'before-call' | 'request-received' | 'first-delta';

/** What a port did with an aborted call, comparable with `deepEqual`. */
export interface AbortCapture {
  outputs: OutputCall[];
  /** Whether the call rejected with the signal's reason itself (the same object). */
  rejectedWithTheReason: boolean;
  requests: number;
  /** Whether the port closed each provider request it made. */
  closedByClient: boolean[];
}

/** The byte offset of the end of the first event whose data contains `marker`. */
export function endOfEventWith(reply: ScriptedRawReply, marker: string): number {
  const body = bodyBytes(reply).toString('utf8');
  const at = body.indexOf(marker);
  if (at < 0) throw new Error(`the reply has no ${JSON.stringify(marker)}`);
  const blankLine = /\r\n\r\n|\n\n|\r\r/g;
  blankLine.lastIndex = at;
  const end = blankLine.exec(body);
  return Buffer.byteLength(body.slice(0, end ? end.index + end[0].length : body.length));
}

/**
 * Runs `corpusCase` through `port` and aborts it at `point`. For `first-delta`, the reply stalls
 * (its connection open) after the event holding `firstDelta`, so that the abort comes mid-stream.
 */
export async function captureAborted(
  { port, name }: NamedPort,
  fake: FakeProviderServer,
  corpusCase: CorpusCase,
  point: AbortPoint,
  firstDelta = '"content":"',
): Promise<AbortCapture> {
  fake.reset();
  const reply: ScriptedRawReply | { type: 'hang' } =
    point === 'request-received'
      ? { type: 'hang' }
      : point === 'first-delta'
        ? { ...corpusCase.reply, stallAfterBytes: endOfEventWith(corpusCase.reply, firstDelta) }
        : corpusCase.reply;
  fake.enqueue(reply);
  const controller = new AbortController();
  const reason = new Error(`cancelled by the test (${point})`);
  if (point === 'before-call') controller.abort(reason);
  const outputs: OutputCall[] = [];
  const onDelta = () => {
    if (point === 'first-delta') controller.abort(reason);
  };
  const call = port.call(modelCallFor(corpusCase, fake.url), controller.signal, {
    onText: (text) => {
      outputs.push(['text', text]);
      onDelta();
    },
    onThinking: (text) => {
      outputs.push(['thinking', text]);
      onDelta();
    },
  });
  if (point === 'request-received') {
    await fake.waitForRequests(1);
    controller.abort(reason);
  }
  const rejection = await withCap(
    call.then(
      () => undefined,
      (error: unknown) => error,
    ),
    WAIT_CAP_MS,
    () => `${name} did not settle "${corpusCase.name}" aborted at ${point}`,
  );
  await fake.waitUntil(
    () => fake.requests.every((request) => request.respondedAt !== undefined),
    `the aborted replies to ${name} ended`,
  );
  return {
    outputs,
    rejectedWithTheReason: rejection === reason,
    requests: fake.requests.length,
    closedByClient: fake.requests.map((request) => request.closedByClient),
  };
}
