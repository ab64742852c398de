/**
 * The local tool round trip, in one process: from the moment the client POSTs a
 * tool result to the moment the model request of the next turn reaches the
 * (fake) provider. Run directly (`node bench/tool-round-trip.ts [--rounds N]`)
 * or as part of `npm run bench`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { createService } from '../src/main.ts';
import { startFakeAnthropic } from '../test/fakes/fake-anthropic.ts';
import { openSse } from '../test/support/sse-client.ts';
import { summarize } from './stats.ts';

export interface RoundTripResult {
  rounds: number;
  medianMs: number;
  p99Ms: number;
}

export async function measureToolRoundTrip(rounds: number): Promise<RoundTripResult> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-runs-bench-tools-'));
  const fake = await startFakeAnthropic();
  const adminToken = randomBytes(24).toString('base64url');
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
    AGENT_RUNS_ADMIN_TOKEN: adminToken,
    AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
  });
  const service = await createService(config, { logger: pino({ level: 'silent' }), dev: false });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown, headers: Record<string, string>) => {
    const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };
  try {
    await post(
      '/admin/v1/workspaces',
      { slug: 'bench', rateLimits: { runStart: 1_000_000, lifecycle: 1_000_000 } },
      admin,
    );
    const { key } = (await post('/admin/v1/workspaces/bench/api-keys', {}, admin)).body;
    await post(
      '/admin/v1/workspaces/bench/providers',
      {
        provider: 'anthropic',
        baseUrl: fake.url,
        apiKey: 'k',
        models: [{ vendorModelId: 'm' }],
        isDefault: true,
      },
      admin,
    );
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const samples: number[] = [];
    for (let round = 0; round < rounds + 5; round++) {
      fake.reset();
      fake.enqueue(
        { toolCalls: [{ id: `toolu_${round}`, name: 'lookup', input: { q: 'x' } }] },
        { text: ['done'] },
      );
      const created = await post(
        '/api/v1/workspaces/bench/agent-runs',
        { systemPrompt: 's', prompt: 'p', tools: [{ kind: 'local', name: 'lookup' }] },
        headers,
      );
      const stream = await openSse(`${base}${created.body.streamUrl}`, headers);
      for await (const frame of stream.frames) {
        if (frame.data.type !== 'local_tool_call') continue;
        const started = performance.now();
        const nextRequest = fake.waitForRequests(2);
        await post(
          `/api/v1/workspaces/bench/agent-runs/${created.body.runId}/tool-results`,
          {
            toolUseId: frame.data.data.toolUseId,
            result: 'found',
          },
          headers,
        );
        await nextRequest;
        if (round >= 5) samples.push(performance.now() - started);
      }
    }
    const summary = summarize(samples);
    return { rounds, medianMs: summary.p50, p99Ms: summary.p99 };
  } finally {
    await service.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200' } } });
  const result = await measureToolRoundTrip(Number(values.rounds));
  console.log(
    `tool-result round trip (POST → next model request at the provider), ${result.rounds} rounds: ` +
      `median ${result.medianMs.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms (target: median < 5 ms)`,
  );
}
