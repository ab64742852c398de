import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { listenerUrl, type Config } from '../../config.ts';

/**
 * The authorization server's issuer: `AGENT_RUNS_PUBLIC_URL`, else `http://HOST:PORT` with the port
 * the server listens on (never taken from a request's Host header).
 */
export function issuerOf(config: Config, app: FastifyInstance): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const address = app.server.address() as AddressInfo | null;
  return listenerUrl(config.host, address?.port ?? config.port);
}
