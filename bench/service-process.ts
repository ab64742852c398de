/**
 * The service under test, alone in its own process so its CPU and memory are
 * measured apart from the load generator and the fake provider. Started as
 * `agent-runs serve` starts it (src/cli/serve.ts: the same logger on stdout, model
 * threads started up front) and configured by the environment like it (the parent
 * sets DATABASE_URL, AGENT_RUNS_ADMIN_TOKEN, AGENT_RUNS_SECRET, and LOG_LEVEL or
 * AGENT_RUNS_WORKER_CONCURRENCY only when asked to: by default both are the service's),
 * plus BENCH_HEARTBEAT_MS: the SSE heartbeat interval (EngineOptions.heartbeatMs; the
 * service's own default, 15 s, when unset).
 */
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createService } from '../src/main.ts';
import { serveParent } from './ipc.ts';

const heartbeatMs =
  process.env.BENCH_HEARTBEAT_MS === undefined ? undefined : Number(process.env.BENCH_HEARTBEAT_MS);
const config = loadConfig();
const service = await createService(config, {
  logger: createLogger(config.logLevel),
  dev: false,
  startModelThreads: true,
  ...(heartbeatMs !== undefined && { engine: { heartbeatMs } }),
});
// Listens like `agent-runs serve` (Node's default backlog): the bench measures what production gets.
await service.app.listen({ port: config.port, host: config.host });
const { port } = service.app.server.address() as AddressInfo;

serveParent({ type: 'ready', url: `http://127.0.0.1:${port}`, info: { pid: process.pid } }, {}, () =>
  service.close(),
);
