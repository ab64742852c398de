/**
 * `node bench/log-cost.ts`: the CPU that request logging costs per request, through Fastify and the
 * service's own logger (src/logger.ts: pino, asynchronous destination) writing to a file, in one
 * process: Fastify's default request lines (`incoming request` and `request completed`, what the
 * service wrote before issue 31), the service's one line per request (RequestLogController), and
 * the same app at LOG_LEVEL=silent. Requests go through `inject` (no sockets), so what differs
 * between the variants is the logging alone; the variants alternate, several rounds each, and
 * each figure is the median of its rounds (the machine is shared: the spread is printed).
 */
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createLogger } from '../src/logger.ts';
import { RequestLogController } from '../src/http/plugins/request-log.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
  },
});
const requests = Number(args.requests);
const rounds = Number(args.rounds);

type Variant = 'fastify default lines (before)' | 'one line per request (after)' | 'LOG_LEVEL=silent';
const VARIANTS: Variant[] = [
  'fastify default lines (before)',
  'one line per request (after)',
  'LOG_LEVEL=silent',
];

const dir = mkdtempSync(join(os.tmpdir(), 'agent-runs-log-cost-'));

async function appFor(variant: Variant, fd: number): Promise<FastifyInstance> {
  // As src/http/app.ts takes it.
  const logger: FastifyBaseLogger = createLogger(variant === 'LOG_LEVEL=silent' ? 'silent' : 'info', fd as 1);
  const app = Fastify({
    loggerInstance: logger,
    ...(variant !== 'fastify default lines (before)' && { logController: new RequestLogController() }),
  });
  app.post('/api/v1/workspaces/:workspaceSlug/agent-runs', async (_request, reply) =>
    reply.status(202).send({ runId: 'run_01m8jj8gsfbnwpmdeqanfwmhcp', streamUrl: '/x' }),
  );
  await app.ready();
  return app;
}

/** CPU (user + system) per request, µs, for one round of `requests` injected requests. */
async function round(variant: Variant): Promise<number> {
  const fd = openSync(join(dir, `${variant.replace(/\W+/g, '-')}.log`), 'a');
  const app = await appFor(variant, fd);
  const request = {
    method: 'POST' as const,
    url: '/api/v1/workspaces/bench/agent-runs',
    headers: { authorization: 'Bearer svc_x', 'content-type': 'application/json' },
    payload: '{"prompt":"hi"}',
  };
  for (let i = 0; i < 500; i++) await app.inject(request); // warm-up
  const before = process.cpuUsage();
  for (let i = 0; i < requests; i++) await app.inject(request);
  // Let the asynchronous destination write what it holds: its writes are part of the cost.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const used = process.cpuUsage(before);
  await app.close();
  closeSync(fd);
  return ((used.user + used.system) / requests) | 0;
}

const figures = new Map<Variant, number[]>(VARIANTS.map((variant) => [variant, []]));
for (let r = 0; r < rounds; r++) {
  for (const variant of VARIANTS) figures.get(variant)?.push(await round(variant));
}
rmSync(dir, { recursive: true, force: true });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const silent = median(figures.get('LOG_LEVEL=silent') ?? []);
console.log(
  `CPU per request, µs (${requests} requests per round, ${rounds} rounds alternated; median, then each round):`,
);
for (const variant of VARIANTS) {
  const values = figures.get(variant) ?? [];
  const m = median(values);
  const extra = variant === 'LOG_LEVEL=silent' ? '' : `  (logging: ${m - silent} µs)`;
  console.log(`  ${variant.padEnd(32)} ${String(m).padStart(5)}${extra}   [${values.join(', ')}]`);
}
