import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { countOpenStream } from '../../src/http/sse/open-stream-gauge.ts';
import { PrometheusMetrics } from '../../src/infra/prometheus-metrics.ts';
import { parsed, sample } from '../support/prometheus-scrape.ts';
import { deferred, eventually } from '../support/waits.ts';

/** `agent_runs_sse_streams_open` as the registry exposes it. */
async function openStreams(metrics: PrometheusMetrics): Promise<number> {
  return sample(parsed(await metrics.text()), 'agent_runs_sse_streams_open');
}

/** A server on loopback whose one route hands each response to `handle`. */
async function serving(handle: (request: IncomingMessage, response: ServerResponse) => void): Promise<{
  server: Server;
  port: number;
}> {
  const server = createServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

describe('the open SSE streams gauge follows each response (extensions §2: agent_runs_sse_streams_open)', () => {
  const newMetrics = () => new PrometheusMetrics({ workspaceSlugs: async () => [], onError: () => {} });

  it('+1 while the stream is open, -1 once when its end is sent', async () => {
    const metrics = newMetrics();
    const finish = deferred();
    const { server, port } = await serving((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      countOpenStream(response, metrics);
      void finish.promise.then(() => response.end('data: {}\n\n'));
    });
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      assert.equal(await openStreams(metrics), 1);
      finish.resolve();
      assert.equal(await answer.text(), 'data: {}\n\n');
      await eventually(async () => (await openStreams(metrics)) === 0, 'the ended stream is not counted');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('-1 once when the client goes away mid-stream', async () => {
    const metrics = newMetrics();
    const { server, port } = await serving((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': open\n\n');
      countOpenStream(response, metrics);
    });
    try {
      const controller = new AbortController();
      const answer = await fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal });
      assert.equal(answer.status, 200);
      assert.equal(await openStreams(metrics), 1);
      controller.abort();
      await eventually(async () => (await openStreams(metrics)) === 0, 'the left stream is not counted');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a response whose client left before the stream began is never counted (its close is past: it would never come down)', async () => {
    const metrics = newMetrics();
    const counted = deferred();
    const { server, port } = await serving((request, response) => {
      // The stream begins only once the client is gone, as when it leaves while the route reads the run.
      request.socket.once('close', () => {
        countOpenStream(response, metrics);
        counted.resolve();
      });
    });
    try {
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      // Gone once the server has the request: its handler runs before this end is read.
      socket.end();
      await counted.promise;
      assert.equal(await openStreams(metrics), 0);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
