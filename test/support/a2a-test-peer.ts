import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  UnauthenticatedUser,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { deferred } from './waits.ts';

/** Where the card lives, as an A2A v0.3 peer publishes it. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/**
 * How the peer's agent answers a message: `echo` replies with a Message; the
 * others run a Task (`task` completes with an artifact, `fail` and
 * `input-required` end in those states with a status message); `hang` never
 * answers; `rpc-error` answers every call with a JSON-RPC error before the agent runs.
 */
export type PeerBehavior = 'echo' | 'task' | 'fail' | 'input-required' | 'hang' | 'rpc-error';

export interface A2aTestPeerOptions {
  /** The one path that speaks JSON-RPC; every other POST is a 404. */
  rpcPath: string;
  /** Serve a v0.3 Agent Card at `/.well-known/agent-card.json` whose `url` is the JSON-RPC endpoint. */
  card?: boolean;
  /** The endpoint the card names instead of this peer's own (another peer's, say). */
  cardEndpoint?: string;
  behavior?: PeerBehavior;
  /**
   * The A2A version the peer speaks: `0.3` (default: a v0.3 card, `message/send`) or `1.0` (a 1.0
   * card whose `supportedInterfaces` offer JSON-RPC 1.0, `SendMessage`).
   */
  version?: '0.3' | '1.0';
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON-RPC request, for POSTs to the JSON-RPC endpoint. */
  body?: Record<string, unknown>;
}

export interface A2aTestPeer {
  origin: string;
  /** Every HTTP request, in arrival order (card fetches and 404s included). */
  requests: RecordedRequest[];
  /** The A2A context id of every message the agent ran, in order. */
  contexts: string[];
  /** Requests whose connection closed before the peer answered them. */
  abandoned: number;
  close(): Promise<void>;
}

/**
 * A real A2A peer on 127.0.0.1: the SDK's request handler behind its v0.3 JSON-RPC
 * transport handler (or, in `1.0`, its 1.0 one), mounted on a plain node:http server at any path.
 */
export async function startA2aTestPeer(options: A2aTestPeerOptions): Promise<A2aTestPeer> {
  const behavior = options.behavior ?? 'echo';
  const version = options.version ?? '0.3';
  const released = deferred();
  const requests: RecordedRequest[] = [];
  const contexts: string[] = [];
  let abandoned = 0;
  let origin = '';

  const executor: AgentExecutor = {
    execute: async (request, bus) => {
      contexts.push(request.contextId);
      await runBehavior(behavior, request, bus, released.promise);
    },
    cancelTask: async () => {},
  };
  const server = createServer((req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) abandoned++;
    });
    void answer(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', origin).pathname;
    const recorded: RecordedRequest = { method: req.method ?? '', path, headers: req.headers };
    requests.push(recorded);
    if (req.method === 'GET' && options.card === true && path === AGENT_CARD_PATH) {
      const endpoint = options.cardEndpoint ?? `${origin}${options.rpcPath}`;
      return sendJson(res, 200, version === '1.0' ? v1AgentCard(endpoint) : legacyAgentCard(endpoint));
    }
    if (req.method !== 'POST' || path !== options.rpcPath) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    const body = JSON.parse(await readText(req)) as Record<string, unknown>;
    recorded.body = body;
    if (behavior === 'rpc-error') {
      return sendJson(res, 200, {
        jsonrpc: '2.0',
        id: body.id ?? null,
        error: { code: -32603, message: 'the peer is out of order' },
      });
    }
    const context = new ServerCallContext({ user: new UnauthenticatedUser(), requestedVersion: version });
    const reply = await rpc.handle(body, context);
    if (Symbol.asyncIterator in reply) throw new Error('the test peer does not stream');
    if (!res.destroyed) sendJson(res, 200, reply);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = AgentCard.fromJSON({
    name: 'test-peer',
    description: 'An A2A peer for tests.',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${origin}${options.rpcPath}`, protocolBinding: 'JSONRPC', protocolVersion: version },
    ],
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  });
  // Declared once the port is known (the card names the endpoint); requests only arrive after this line runs.
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const rpc =
    version === '1.0' ? new JsonRpcTransportHandler(handler) : new LegacyJsonRpcTransportHandler(handler);

  return {
    origin,
    requests,
    contexts,
    get abandoned() {
      return abandoned;
    },
    close: async () => {
      released.resolve();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The text the echo agent answers: what it was sent. */
export function echoOf(text: string): string {
  return `echo: ${text}`;
}

async function runBehavior(
  behavior: PeerBehavior,
  request: RequestContext,
  bus: ExecutionEventBus,
  released: Promise<void>,
): Promise<void> {
  const text = textOf(request.userMessage);
  const { taskId, contextId } = request;
  switch (behavior) {
    case 'echo':
    case 'rpc-error':
      bus.publish(AgentEvent.message(agentMessage(contextId, '', echoOf(text))));
      return;
    case 'hang':
      await released;
      return;
    case 'task':
      bus.publish(AgentEvent.task(newTask(taskId, contextId, request.userMessage)));
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'answer',
            name: 'answer',
            description: '',
            parts: [textPart(`artifact for: ${text}`)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_COMPLETED, 'done'));
      return;
    case 'fail':
      bus.publish(AgentEvent.task(newTask(taskId, contextId, request.userMessage)));
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_FAILED, 'the peer could not do it'));
      return;
    case 'input-required':
      bus.publish(AgentEvent.task(newTask(taskId, contextId, request.userMessage)));
      bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, 'which city?'));
      return;
  }
}

function newTask(taskId: string, contextId: string, userMessage: Message): Task {
  return {
    id: taskId,
    contextId,
    status: {
      state: TaskState.TASK_STATE_SUBMITTED,
      message: undefined,
      timestamp: new Date().toISOString(),
    },
    artifacts: [],
    history: [userMessage],
    metadata: undefined,
  };
}

function statusUpdate(taskId: string, contextId: string, state: TaskState, text: string) {
  return AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: { state, message: agentMessage(contextId, taskId, text), timestamp: new Date().toISOString() },
    metadata: undefined,
  });
}

function agentMessage(contextId: string, taskId: string, text: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

function textOf(message: Message): string {
  return message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** A v0.3 Agent Card, as a v0.3 peer serves it: the JSON-RPC endpoint is its `url`. */
function legacyAgentCard(url: string): Record<string, unknown> {
  return {
    protocolVersion: '0.3.0',
    name: 'test-peer',
    description: 'An A2A peer for tests.',
    url,
    preferredTransport: 'JSONRPC',
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

/** A 1.0 Agent Card, as a 1.0-only peer serves it: no `url`, the endpoint in `supportedInterfaces`. */
function v1AgentCard(url: string): Record<string, unknown> {
  return AgentCard.toJSON(
    AgentCard.fromJSON({
      name: 'test-peer',
      description: 'An A2A 1.0 peer for tests.',
      version: '1.0.0',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: false, pushNotifications: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    }),
  ) as Record<string, unknown>;
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
