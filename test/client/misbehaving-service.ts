import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the service does with one request (numbered from 1). */
export type Misbehavior =
  | { answer: number; headers?: Record<string, string>; body?: unknown }
  /** Destroys the socket without answering. */
  | { drop: true }
  /** Never answers (until the server closes). */
  | { hang: true }
  /** Sends the status line and headers of a 200, then nothing more. */
  | { stallBody: true };

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

/**
 * A loopback HTTP server standing in for the service, which answers each request as a test plans:
 * errors with their headers, dropped sockets, silence. It records what it received.
 */
export interface MisbehavingService {
  baseUrl: string;
  readonly requests: readonly SeenRequest[];
  /** Resolves when the n-th request has arrived. */
  requestArrived(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startMisbehavingService(
  planFor: (request: number, seen: SeenRequest) => Misbehavior,
): Promise<MisbehavingService> {
  const requests: SeenRequest[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const open = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const seen = { method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers };
    requests.push(seen);
    for (const waiter of waiters.filter((w) => w.n <= requests.length)) waiter.resolve();
    const plan = planFor(requests.length, seen);
    request.resume();
    if ('drop' in plan) {
      request.socket.destroy();
    } else if ('hang' in plan) {
      open.add(response);
    } else if ('stallBody' in plan) {
      open.add(response);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
    } else {
      response.writeHead(plan.answer, { 'content-type': 'application/json', ...plan.headers });
      response.end(JSON.stringify(plan.body ?? {}));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    requestArrived: (n) =>
      new Promise((resolve) => {
        if (requests.length >= n) resolve();
        else waiters.push({ n, resolve });
      }),
    close: async () => {
      for (const response of open) response.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
