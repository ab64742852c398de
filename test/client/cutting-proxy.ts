import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** What the proxy does with the server-to-client bytes of one connection (numbered from 1). */
export type ConnectionPlan =
  | { action: 'pass' }
  /** Destroys both sockets once this many bytes have gone to the client (mid-frame, usually). */
  | { action: 'cut'; afterBytes: number }
  /** Forwards this many bytes, then silently holds back the rest, keeping the socket open. */
  | { action: 'stall'; afterBytes: number }
  /** Closes the client socket at once, before connecting upstream. */
  | { action: 'refuse' };

/**
 * A loopback TCP proxy in front of the real service that drops or stalls connections as a test plans
 * them, so that a client meets real network failures: reset sockets, cut frames, silent peers. The
 * target may change between connections (a service restarted on another port).
 */
export interface CuttingProxy {
  baseUrl: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Client connections still open. */
  readonly openConnections: number;
  close(): Promise<void>;
}

export async function startCuttingProxy(
  target: string | (() => string),
  planFor: (connection: number) => ConnectionPlan,
): Promise<CuttingProxy> {
  const targetUrl = () => new URL(typeof target === 'string' ? target : target());
  const sockets = new Set<net.Socket>();
  let connections = 0;
  let openConnections = 0;
  const server = net.createServer((client) => {
    connections += 1;
    const plan = planFor(connections);
    sockets.add(client);
    openConnections += 1;
    client.on('close', () => {
      openConnections -= 1;
      sockets.delete(client);
    });
    client.on('error', () => undefined);
    if (plan.action === 'refuse') {
      client.destroy();
      return;
    }
    const { hostname, port } = targetUrl();
    const upstream = net.connect({ host: hostname, port: Number(port) });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    let sent = 0;
    upstream.on('data', (chunk: Buffer) => {
      if (plan.action === 'pass') {
        client.write(chunk);
        return;
      }
      const room = plan.afterBytes - sent;
      if (room <= 0) return;
      client.write(room >= chunk.length ? chunk : chunk.subarray(0, room));
      sent += Math.min(room, chunk.length);
      if (sent >= plan.afterBytes && plan.action === 'cut') {
        // Let the written bytes leave before the reset.
        client.end(() => {
          client.destroy();
          upstream.destroy();
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    get connections() {
      return connections;
    },
    get openConnections() {
      return openConnections;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
