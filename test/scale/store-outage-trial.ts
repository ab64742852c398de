import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster } from './cluster.ts';
import {
  extraExecutions,
  keepRequesting,
  untilReadiness,
  unexpectedExits,
  verifyRuns,
  type RunClient,
  type RunFigures,
  type Workload,
} from './fault-workload.ts';
import type { PrivateServer } from './private-servers.ts';

/** The figures one outage trial reports. */
export interface OutageReport extends RunFigures {
  outageSeconds: number;
  runsAcceptedDuringOutage: number;
  requests: number;
  answers503: number;
  answers5xxOther: number;
  missingRetryAfter: number;
  networkErrors: number;
  /** From the stop until every API's /readyz said the store is unavailable. */
  msToNotReady: number;
  /** From the restart until every API's /readyz answered 200. */
  msToReady: number;
  /** From the restart until the last run ended. */
  msToAllRunsEnded: number;
  /** Executions beyond the two each run needs: takeovers from the log. */
  takeovers: number;
  unexpectedExits: string[];
  unexpectedAnswers: string[];
}

const RUNS = 6;
/** Runs start this far apart, so the outage finds them at different stages (tool calls, waits, streaming). */
const STAGGER_MS = 600;

/**
 * One trial: six runs in flight (created on one API, streamed from the other), the store stopped
 * while they run, requests kept going meanwhile (reads, model lists, a run created every second),
 * the store started again after `outageMs`; every run is then followed to its end and checked
 * against its log.
 */
export async function storeOutageTrial(options: {
  cluster: Cluster;
  workload: Workload;
  store: PrivateServer;
  check: 'database' | 'redis';
  outageMs: number;
}): Promise<OutageReport> {
  const { cluster, workload, store } = options;
  const apis = cluster.apis.map((api) => api.baseUrl ?? '');
  const requestsBefore = workload.traffic.requests;
  const clients: RunClient[] = [];
  for (let index = 0; index < RUNS; index++) {
    const created = await workload.createRun(apis[index % 2] ?? '');
    if (!created.runId) throw new Error(`a run was refused before the outage: ${created.status}`);
    clients.push(workload.follow(created.runId, apis[(index + 1) % 2] ?? ''));
    await sleep(STAGGER_MS);
  }
  // The first run is streaming its reply by now (its tool round is over); the last has just begun.
  await clients[0]?.seen(10);

  const stopping = Date.now();
  await store.stop();
  const stoppedAt = Date.now();
  const probes = new AbortController();
  const created: Array<{ client: RunClient; at: number }> = [];
  const probing = keepRequesting(workload, cluster, {
    readRunId: clients[0]?.runId ?? '',
    stop: probes.signal,
    createEveryMs: 1000,
    onCreated: (client) => created.push({ client, at: Date.now() }),
  });
  const msToNotReady = await untilReadiness(
    apis,
    (answer) => answer.status === 503 && answer.body.checks?.[options.check] === 'unavailable',
    stoppedAt,
  );
  await sleep(Math.max(0, options.outageMs - (Date.now() - stopping)));
  await store.start();
  const restartedAt = Date.now();
  const msToReady = await untilReadiness(apis, (answer) => answer.status === 200, restartedAt);
  probes.abort();
  await probing;

  const all = [...clients, ...created.map(({ client }) => client)];
  await Promise.all(all.map((client) => client.ended));
  const msToAllRunsEnded = Date.now() - restartedAt;
  const figures = await verifyRuns(workload, all, apis[0] ?? '');
  const { traffic } = workload;
  return {
    ...figures,
    outageSeconds: Math.round((restartedAt - stopping) / 100) / 10,
    runsAcceptedDuringOutage: created.filter(({ at }) => at <= restartedAt).length,
    requests: traffic.requests - requestsBefore,
    answers503: traffic.count((status) => status === 503),
    answers5xxOther: traffic.count((status) => status >= 500 && status !== 503),
    missingRetryAfter: traffic.missingRetryAfter,
    networkErrors: traffic.networkErrors,
    msToNotReady,
    msToReady,
    msToAllRunsEnded,
    takeovers: extraExecutions(
      cluster,
      all.map((client) => client.runId),
    ),
    unexpectedExits: unexpectedExits(cluster, []),
    unexpectedAnswers: traffic.unexpected.slice(0, 10),
  };
}
