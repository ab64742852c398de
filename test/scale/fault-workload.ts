import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer, ScriptedReply } from '../fakes/scripted-reply.ts';
import { startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import { openSse, readAll, type SseFrame } from '../support/sse-client.ts';
import { provisionAcme, type Cluster, type ServiceProcess } from './cluster.ts';

/**
 * The workload of the fault tests: runs that call a server tool (an HTTP tool on loopback that
 * counts its requests), then a client tool the test answers, then stream a slow reply, followed by
 * clients that reconnect with Last-Event-ID whenever a stream drops or is refused, exactly as a
 * client of the service is told to. Every request's status is counted.
 */

export const WS = '/api/v1/workspaces/acme';
const TERMINAL = new Set(['result', 'error', 'cancelled']);
/** The final reply's words, one every 100 ms: 40 take four seconds, so that a fault lands in the middle. */
const DEFAULT_REPLY_WORDS = 40;
const WORD_INTERVAL_MS = 100;
/** How long the HTTP tool takes to answer. */
const TOOL_LATENCY_MS = 300;

/** Each request's reply from its conversation: ledger (server tool), then confirm (client tool), then text. */
function replyFor(words: readonly string[]): (body: Record<string, unknown>) => ScriptedReply {
  return (body) => {
    const conversation = JSON.stringify(body.messages ?? []);
    const tag = /tag=([a-z0-9]+)/.exec(conversation)?.[1] ?? 'none';
    const results = conversation.match(/"type":"tool_result"/g)?.length ?? 0;
    if (results === 0) return { toolCalls: [{ id: `toolu_ledger_${tag}`, name: 'ledger', input: { tag } }] };
    if (results === 1)
      return { toolCalls: [{ id: `toolu_confirm_${tag}`, name: 'confirm', input: { tag } }] };
    return { text: [...words], chunkIntervalMs: WORD_INTERVAL_MS };
  };
}

/** Statuses of every answer the clients got, and the connections that failed. */
export class Traffic {
  readonly statuses = new Map<number, number>();
  networkErrors = 0;
  /** 503 answers without a Retry-After header. */
  missingRetryAfter = 0;
  /** Non-2xx answers other than 503, with what they said (for the report). */
  readonly unexpected: string[] = [];

  record(method: string, url: string, status: number, headers: Headers, body?: string): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status === 503 && headers.get('retry-after') === null) this.missingRetryAfter += 1;
    if (status >= 500 && status !== 503) this.unexpected.push(`${method} ${url} ${status} ${body ?? ''}`);
  }

  get requests(): number {
    return [...this.statuses.values()].reduce((sum, count) => sum + count, 0) + this.networkErrors;
  }

  count(predicate: (status: number) => boolean): number {
    return [...this.statuses].filter(([status]) => predicate(status)).reduce((sum, [, n]) => sum + n, 0);
  }
}

export interface Workload {
  fake: FakeProviderServer;
  tools: HttpToolServer;
  headers: Record<string, string>;
  toolId: string;
  traffic: Traffic;
  /** Creates a run through `api`; the run's id, or the status that refused it. */
  createRun(api: string): Promise<{ runId?: string; status: number }>;
  /** Follows a run to its terminal event through the cluster's live API processes. */
  follow(runId: string, firstApi: string): RunClient;
  /** Requests the HTTP tool got per run tag. */
  toolRequests(tag: string): number;
  close(): Promise<void>;
}

/** What a client saw of one run. */
export interface RunClient {
  runId: string;
  frames: SseFrame[];
  /** When each frame arrived (epoch ms). */
  frameTimes: number[];
  /** Frames whose seq the client already had (a correct server never sends one). */
  duplicates: number[];
  /** Where a frame's seq was not the next one. */
  gaps: Array<[number, number]>;
  reconnects: number;
  /** `local_tool_call` frames per toolUseId. */
  localToolDeliveries: Map<string, number>;
  /** Resolves with the frames once the terminal event arrived. */
  ended: Promise<SseFrame[]>;
  /** Resolves once the client has seen at least `count` frames. */
  seen(count: number): Promise<void>;
}

/** The tag of each run created by `createRun`: its prompt carries it, so the fake and the HTTP tool see it. */
const runTags = new Map<string, string>();

export async function startWorkload(
  cluster: Cluster,
  options: { replyWords?: number } = {},
): Promise<Workload> {
  const fake = await startFakeAnthropic();
  const words = Array.from({ length: options.replyWords ?? DEFAULT_REPLY_WORDS }, (_, index) => `w${index} `);
  fake.replyWith(replyFor(words));
  const tools = await startHttpToolServer();
  tools.route('/ledger', async (_request, response) => {
    await sleep(TOOL_LATENCY_MS);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"recorded":true}');
  });
  const firstApi = cluster.apis[0]?.baseUrl ?? '';
  const headers = { authorization: `Bearer ${await provisionAcme(firstApi, cluster.adminToken, fake.url)}` };
  const toolRow = await fetch(`${firstApi}/admin/v1/workspaces/acme/tools`, {
    method: 'POST',
    headers: { authorization: `Bearer ${cluster.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'ledger',
      parameters: { type: 'object', properties: { tag: { type: 'string' } } },
      http: { url: tools.url('/ledger') },
    }),
  });
  if (toolRow.status !== 201) throw new Error(`creating the tool: ${toolRow.status} ${await toolRow.text()}`);
  const { id: toolId } = (await toolRow.json()) as { id: string };
  const traffic = new Traffic();
  // Closing the workload ends the clients still trying (a test that failed half-way).
  const closed = new AbortController();
  const liveApis = () =>
    cluster.apis.filter((api) => api.child.exitCode === null && api.child.signalCode === null);

  /** One request, counted; undefined when the connection failed. */
  const send = async (
    base: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: string } | undefined> => {
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      traffic.record(method, path, response.status, response.headers, text);
      return { status: response.status, body: text };
    } catch {
      traffic.networkErrors += 1;
      return undefined;
    }
  };

  /** Answers a client tool call, through any live API, until the answer is stored. */
  const answer = async (runId: string, toolUseId: string): Promise<void> => {
    let tried = false;
    for (let attempt = 0; attempt < 600 && !closed.signal.aborted; attempt++) {
      const apis = liveApis();
      const base = apis[attempt % apis.length]?.baseUrl ?? '';
      const answered = await send(base, 'POST', `${WS}/agent-runs/${runId}/tool-results`, {
        toolUseId,
        result: 'confirmed',
      });
      if (answered?.status === 200) return;
      // A try whose answer was stored before its connection failed: the call is answered already.
      if (answered?.status === 404 && tried) return;
      if (answered && answered.status !== 503)
        throw new Error(`tool result: ${answered.status} ${answered.body}`);
      tried = true;
      await sleep(250);
    }
    throw new Error(`the tool result for ${runId} was never accepted`);
  };

  const follow = (runId: string, firstApi: string): RunClient => {
    const client: RunClient = {
      runId,
      frames: [],
      frameTimes: [],
      duplicates: [],
      gaps: [],
      reconnects: 0,
      localToolDeliveries: new Map(),
      ended: Promise.resolve([]),
      seen: () => Promise.resolve(),
    };
    const seenWaiters = new Set<() => void>();
    client.seen = (count) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (client.frames.length < count) return;
          seenWaiters.delete(check);
          resolve();
        };
        seenWaiters.add(check);
        check();
      });
    const answers: Promise<void>[] = [];
    client.ended = (async () => {
      let lastSeq = 0;
      let base = firstApi;
      const deadline = Date.now() + 180_000;
      while (Date.now() < deadline && !closed.signal.aborted) {
        const url = `${base}${WS}/agent-runs/${runId}/stream`;
        let ended = false;
        try {
          const stream = await openSse(url, {
            ...headers,
            ...(lastSeq > 0 && { 'last-event-id': String(lastSeq) }),
          });
          traffic.record('GET', 'stream', stream.status, stream.headers);
          if (stream.status === 200) {
            for await (const frame of stream.frames) {
              const seq = frame.data.seq;
              if (seq <= lastSeq) {
                client.duplicates.push(seq);
                continue;
              }
              if (seq !== lastSeq + 1) client.gaps.push([lastSeq, seq]);
              lastSeq = seq;
              client.frames.push(frame);
              client.frameTimes.push(Date.now());
              for (const wake of [...seenWaiters]) wake();
              if (frame.data.type === 'local_tool_call') {
                const toolUseId = frame.data.data.toolUseId as string;
                client.localToolDeliveries.set(
                  toolUseId,
                  (client.localToolDeliveries.get(toolUseId) ?? 0) + 1,
                );
                answers.push(answer(runId, toolUseId));
              }
              if (TERMINAL.has(frame.data.type)) {
                ended = true;
                break;
              }
            }
          } else {
            stream.close();
          }
        } catch {
          traffic.networkErrors += 1;
        }
        if (ended) break;
        // Dropped, refused or unreachable: resume on the next live API process.
        client.reconnects += 1;
        const apis = liveApis();
        const next = apis[(apis.findIndex((api) => api.baseUrl === base) + 1) % apis.length];
        base = next?.baseUrl ?? base;
        await sleep(250);
      }
      await Promise.all(answers);
      if (!TERMINAL.has(client.frames.at(-1)?.data.type ?? '')) {
        throw new Error(`run ${runId}: no terminal event within the cap; got ${client.frames.length} frames`);
      }
      return client.frames;
    })();
    // Awaited by the test; one left behind by a failed test must not fail the process as unhandled.
    client.ended.catch(() => undefined);
    return client;
  };

  return {
    fake,
    tools,
    headers,
    toolId,
    traffic,
    createRun: async (api) => {
      // The id is not known before the answer: the tag rides on a nonce the prompt carries.
      const nonce = Math.random().toString(36).slice(2, 12);
      const created = await send(api, 'POST', `${WS}/agent-runs`, {
        systemPrompt: 'You keep a ledger.',
        prompt: `Record this. tag=${nonce}`,
        metadata: { tag: nonce },
        tools: [
          { kind: 'svc', id: toolId },
          {
            kind: 'local',
            name: 'confirm',
            parameters: { type: 'object', properties: { tag: { type: 'string' } } },
          },
        ],
      });
      if (!created) return { status: 0 };
      if (created.status !== 202) return { status: created.status };
      const { runId } = JSON.parse(created.body) as { runId: string };
      runTags.set(runId, nonce);
      return { runId, status: 202 };
    },
    follow,
    toolRequests: (tag) =>
      tools.requestsTo('/ledger').filter((request) => request.body.includes(`"${tag}"`)).length,
    close: async () => {
      closed.abort();
      await fake.close();
      await tools.close();
    },
  };
}

/** What a fault test reports and asserts about its runs. */
export interface RunFigures {
  runs: number;
  eventsLost: number;
  eventsDuplicated: number;
  gaps: number;
  toolsExecutedTwice: number;
  localToolCallsDeliveredTwice: number;
  notSucceeded: string[];
  reconnects: number;
}

/** Checks every client's frames against the run's persisted log, read afresh from `api`. */
export async function verifyRuns(
  workload: Workload,
  clients: readonly RunClient[],
  api: string,
): Promise<RunFigures> {
  const figures: RunFigures = {
    runs: clients.length,
    eventsLost: 0,
    eventsDuplicated: 0,
    gaps: 0,
    toolsExecutedTwice: 0,
    localToolCallsDeliveredTwice: 0,
    notSucceeded: [],
    reconnects: 0,
  };
  for (const client of clients) {
    const log = await readAll(`${api}${WS}/agent-runs/${client.runId}/stream`, workload.headers);
    const received = new Set(client.frames.map((frame) => frame.data.seq));
    figures.eventsLost += log.filter((frame) => !received.has(frame.data.seq)).length;
    figures.eventsDuplicated += client.duplicates.length;
    figures.gaps += client.gaps.length;
    figures.reconnects += client.reconnects;
    const logged = new Map(log.map((frame) => [frame.data.seq, frame.raw]));
    for (const frame of client.frames) {
      if (logged.get(frame.data.seq) !== frame.raw) figures.eventsLost += 1;
    }
    const tag = runTags.get(client.runId) ?? '';
    if (workload.toolRequests(tag) > 1) figures.toolsExecutedTwice += 1;
    for (const deliveries of client.localToolDeliveries.values()) {
      if (deliveries > 1) figures.localToolCallsDeliveredTwice += 1;
    }
    const terminal = log.at(-1)?.data;
    if (terminal?.type !== 'result' || terminal.data.subtype !== 'success') {
      figures.notSucceeded.push(`${client.runId}: ${JSON.stringify(terminal)}`);
    }
  }
  return figures;
}

/** Processes that ended without the test ending them. */
export function unexpectedExits(cluster: Cluster, stoppedOnPurpose: readonly ServiceProcess[]): string[] {
  return cluster
    .processes()
    .filter((process) => !stoppedOnPurpose.includes(process))
    .filter((process) => process.child.exitCode !== null || process.child.signalCode !== null)
    .map(
      (process) =>
        `${process.name} exited (${process.child.exitCode ?? process.child.signalCode}): ${process.stdout.slice(-3000)}`,
    );
}

/** An answer of `/readyz`. */
export interface ReadinessAnswer {
  status: number;
  body: { status?: string; checks?: { database?: string; redis?: string } };
}

/** `/readyz` of `api`, or undefined when the connection failed. */
export async function readiness(api: string): Promise<ReadinessAnswer | undefined> {
  try {
    const response = await fetch(`${api}/readyz`, { signal: AbortSignal.timeout(5000) });
    return { status: response.status, body: (await response.json()) as ReadinessAnswer['body'] };
  } catch {
    return undefined;
  }
}

/**
 * Polls `/readyz` of every API process until each has answered as `matches` says; resolves with how
 * long that took for the slowest one.
 */
export async function untilReadiness(
  apis: readonly string[],
  matches: (answer: ReadinessAnswer) => boolean,
  since: number,
  capMs = 60_000,
): Promise<number> {
  const pending = new Set(apis);
  let slowest = 0;
  while (pending.size > 0) {
    if (Date.now() - since > capMs)
      throw new Error(`readiness did not change within ${capMs} ms on ${[...pending].join(', ')}`);
    for (const api of [...pending]) {
      const answer = await readiness(api);
      if (answer && matches(answer)) {
        pending.delete(api);
        slowest = Math.max(slowest, Date.now() - since);
      }
    }
    if (pending.size > 0) await sleep(50);
  }
  return slowest;
}

/**
 * Keeps requests going against every live API process until `stop` aborts: reads a run, lists
 * models and creates a run every `createEveryMs` (each created run is followed to its end like the
 * others, so runs accepted during an outage must complete too).
 */
export async function keepRequesting(
  workload: Workload,
  cluster: Cluster,
  options: {
    readRunId: string;
    stop: AbortSignal;
    createEveryMs: number;
    onCreated(client: RunClient): void;
  },
): Promise<void> {
  let lastCreate = 0;
  let turn = 0;
  while (!options.stop.aborted) {
    const apis = cluster.apis.filter((api) => api.child.exitCode === null && api.child.signalCode === null);
    const base = apis[turn++ % apis.length]?.baseUrl ?? '';
    const requests: Promise<unknown>[] = [
      probe(workload, base, 'GET', `${WS}/agent-runs/${options.readRunId}`),
      probe(workload, base, 'GET', `${WS}/models`),
    ];
    if (Date.now() - lastCreate >= options.createEveryMs) {
      lastCreate = Date.now();
      requests.push(
        workload.createRun(base).then(({ runId }) => {
          if (runId) options.onCreated(workload.follow(runId, base));
        }),
      );
    }
    await Promise.all(requests);
    await sleep(100);
  }
}

async function probe(workload: Workload, base: string, method: string, path: string): Promise<void> {
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: workload.headers,
      signal: AbortSignal.timeout(30_000),
    });
    workload.traffic.record(method, path, response.status, response.headers, await response.text());
  } catch {
    workload.traffic.networkErrors += 1;
  }
}

/**
 * Executions of the runs beyond the two each needs (one until it parks on its client tool, one after
 * the answer): each is a takeover from the log (after an outage, a stop or a lost job).
 */
export function extraExecutions(cluster: Cluster, runIds: readonly string[]): number {
  const logs = cluster.processes().map((process) => process.stdout);
  let started = 0;
  for (const log of logs) {
    for (const line of log.split('\n')) {
      if (!line.includes('"msg":"run started"')) continue;
      if (runIds.some((runId) => line.includes(`"runId":"${runId}"`))) started += 1;
    }
  }
  return started - 2 * runIds.length;
}

/** With AGENT_RUNS_FAULT_LOGS set to a folder, each process's output is written there (for a failure's post-mortem). */
export function keepLogs(cluster: Cluster | undefined, name: string): void {
  const dir = process.env.AGENT_RUNS_FAULT_LOGS;
  if (!dir || !cluster) return;
  mkdirSync(dir, { recursive: true });
  for (const service of cluster.processes()) {
    writeFileSync(join(dir, `${name}-${service.name}.log`), service.stdout);
  }
}
