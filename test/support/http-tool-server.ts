import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the tool server received. */
export interface ToolRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Set once the client closed the connection before the answer was complete. */
  closedByClient: boolean;
}

export type ToolAnswer = (request: ToolRequest, response: ServerResponse) => void | Promise<void>;

/** An HTTP endpoint on loopback that a workspace Tool row points at; each route answers as the test says. */
export interface HttpToolServer {
  url(path: string): string;
  requests: ToolRequest[];
  /** Requests to this path, in arrival order. */
  requestsTo(path: string): ToolRequest[];
  route(path: string, answer: ToolAnswer): void;
  /** Waits until `check` holds over the requests (checked on every request and connection close). */
  until(
    check: (requests: readonly ToolRequest[]) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpToolServer(): Promise<HttpToolServer> {
  const requests: ToolRequest[] = [];
  const routes = new Map<string, ToolAnswer>();
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: ToolRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      closedByClient: false,
    };
    requests.push(request);
    res.on('close', () => {
      if (!res.writableFinished) request.closedByClient = true;
      notify();
    });
    notify();
    const answer = routes.get(new URL(request.url, 'http://127.0.0.1').pathname);
    if (!answer) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such route');
      return;
    }
    await answer(request, res);
  };
  // A handler that fails is an unhandled rejection, which node:test reports as a failure.
  const server = createServer((req, res) => void handle(req, res));
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    requestsTo: (path) => requests.filter((request) => new URL(request.url, 'http://x').pathname === path),
    route: (path, answer) => routes.set(path, answer),
    until: (check, what, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(listener);
          reject(new Error(`timed out waiting until ${what}`));
        }, timeoutMs);
        const listener = () => {
          if (!check(requests)) return;
          clearTimeout(timer);
          waiters.delete(listener);
          resolve();
        };
        waiters.add(listener);
        listener();
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function answerJson(value: unknown, status = 200): ToolAnswer {
  return (_, response) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  };
}
