import { startCluster, type Cluster } from './cluster.ts';
import { jsonCall, type Answer } from './schedule-cluster.ts';

/**
 * The deployment the worker-kill scale tests SIGKILL a worker of: one API process and two workers
 * (loopback fetches allowed, for the tests' fake provider and webhook receiver), workspace `acme`
 * provisioned through the admin API, and calls to the workspace's routes with its API key.
 */
export interface WorkerKillCluster {
  cluster: Cluster;
  /** `…/api/v1/workspaces/acme` on the API process. */
  ws: string;
  headers: Record<string, string>;
  call(method: string, path: string, body?: unknown): Promise<Answer>;
}

export async function startWorkerKillCluster(options: {
  env?: Record<string, string>;
  /** Creates workspace `acme` through the admin API at `baseUrl`; returns the API key. */
  provision: (baseUrl: string, adminToken: string) => Promise<string>;
}): Promise<WorkerKillCluster> {
  const cluster = await startCluster({
    apis: 1,
    workers: 2,
    env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.1/32', ...options.env },
  });
  try {
    const baseUrl = cluster.apis[0]!.baseUrl!;
    const headers = { authorization: `Bearer ${await options.provision(baseUrl, cluster.adminToken)}` };
    const ws = `${baseUrl}/api/v1/workspaces/acme`;
    return {
      cluster,
      ws,
      headers,
      call: (method, path, body) => jsonCall(`${ws}${path}`, method, headers, body),
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}
