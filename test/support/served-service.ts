import type { AddressInfo } from 'node:net';
import type { ResourceLimits } from 'node:worker_threads';
import pino from 'pino';
import type { Config } from '../../src/config.ts';
import type { ModelPort } from '../../src/engine/ports.ts';
import { createService, type EngineOptions, type Service } from '../../src/main.ts';

export interface TestServer {
  baseUrl: string;
  adminToken: string;
  /** The service in the test's process (on the scale-out deployment: the API; the worker runs apart). */
  service: Service;
  /** fetch against the server with JSON in and out. */
  request(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  /** An admin API call with the admin token. */
  admin(method: string, path: string, body?: unknown): Promise<TestResponse>;
  /**
   * Another API replica of the same deployment, for a test that crosses replicas: on the scale-out
   * deployment a second API service on the same PostgreSQL and Redis (closed with this server);
   * embedded, this server itself, since its one process is every replica there is.
   */
  otherReplica(): Promise<TestServer>;
  /** This service's management listener, when the configuration sets `AGENT_RUNS_METRICS_PORT`. */
  managementUrl?: string | undefined;
  /** Scale-out: the worker process's management listener, when `AGENT_RUNS_METRICS_PORT` is set. */
  workerMetricsUrl?: string | undefined;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
}

/**
 * The real service on port 0 with this configuration (its database is the caller's: closing stops
 * the service only, so another one can start on the same database).
 */
export async function serveOn(
  config: Config,
  adminToken: string,
  options: {
    dev?: boolean;
    engine?: EngineOptions;
    modelThreadResourceLimits?: ResourceLimits;
    models?: ModelPort;
    /** The service's log lines go here (JSON, level info and above); silent otherwise. */
    logLines?: string[];
  } = {},
): Promise<TestServer> {
  const { logLines } = options;
  const service = await createService(config, {
    logger: logLines
      ? pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) })
      : pino({ level: 'silent' }),
    dev: options.dev ?? false,
    ...(options.engine && { engine: options.engine }),
    ...(options.modelThreadResourceLimits && {
      modelThreadResourceLimits: options.modelThreadResourceLimits,
    }),
    ...(options.models && { models: options.models }),
  });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = service.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const managementUrl = await service.listenManagement();

  const request = jsonRequester(baseUrl);

  const server: TestServer = {
    baseUrl,
    adminToken,
    service,
    request,
    admin: (method, path, body) =>
      request(method, `/admin/v1${path}`, {
        ...(body !== undefined && { body }),
        headers: { authorization: `Bearer ${adminToken}` },
      }),
    otherReplica: async () => server,
    managementUrl,
    close: () => service.close(),
  };
  return server;
}

/** `request` of a TestServer for any base URL: JSON in and out, text kept when the body is not JSON. */
export function jsonRequester(baseUrl: string): TestServer['request'] {
  return async (method, path, requestOptions = {}) => {
    const headers: Record<string, string> = { ...requestOptions.headers };
    if (requestOptions.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(requestOptions.body !== undefined && {
        body:
          typeof requestOptions.body === 'string' ? requestOptions.body : JSON.stringify(requestOptions.body),
      }),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body };
  };
}

/**
 * A service already listening at `baseUrl` (a process of its own) spoken to like a TestServer: its
 * URL, `request` and `admin` with `adminToken`; it has no in-process service, knows no other replica,
 * and its owner stops it (`close` does nothing).
 */
export function testServerAt(baseUrl: string, adminToken: string): TestServer {
  const request = jsonRequester(baseUrl);
  return {
    baseUrl,
    adminToken,
    request,
    admin: (method, path, body) =>
      request(method, `/admin/v1${path}`, {
        ...(body !== undefined && { body }),
        headers: { authorization: `Bearer ${adminToken}` },
      }),
    otherReplica: () => Promise.reject(new Error('a service process knows no other replica')),
    close: async () => {},
    get service(): never {
      throw new Error('a service process has no in-process service');
    },
  };
}
