/** The bench workspace, provisioned through the admin API like an operator would. */
import type { ServiceTarget } from './clients.ts';

async function admin(baseUrl: string, token: string, method: string, path: string, body: unknown) {
  const response = await fetch(`${baseUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 201)
    throw new Error(`admin ${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Through the admin API: a workspace without limits that would shape the load (rate limits at the
 * admin API's maximum, as many concurrent runs as it allows), an API key, and the fake as its default
 * `openai-chat` provider. `holdUrl`: also the holding fake, as provider `hold`, model `held`.
 */
export async function provisionWorkspace(
  baseUrl: string,
  adminToken: string,
  fakeUrl: string,
  holdUrl?: string,
): Promise<ServiceTarget> {
  const slug = 'bench';
  // Far above the spec's per-minute defaults: the benchmark starts thousands of runs a minute and
  // opens more than 10,000 streams with one key.
  const unlimited = {
    runStart: 1_000_000,
    lifecycle: 1_000_000,
    otherMutations: 1_000_000,
    transport: 1_000_000,
  };
  await admin(baseUrl, adminToken, 'POST', '/workspaces', {
    slug,
    name: 'Benchmark',
    rateLimits: unlimited,
    maxConcurrentRuns: 100_000,
  });
  const key = await admin(baseUrl, adminToken, 'POST', `/workspaces/${slug}/api-keys`, { name: 'bench' });
  await admin(baseUrl, adminToken, 'POST', `/workspaces/${slug}/providers`, {
    provider: 'fakeopenai',
    api: 'openai-chat',
    baseUrl: fakeUrl,
    apiKey: 'sk-fake-provider-key',
    models: [{ vendorModelId: 'fake-model', label: 'Fake' }],
    isDefault: true,
  });
  if (holdUrl !== undefined) {
    await admin(baseUrl, adminToken, 'POST', `/workspaces/${slug}/providers`, {
      provider: 'hold',
      api: 'openai-chat',
      baseUrl: holdUrl,
      apiKey: 'sk-fake-provider-key',
      models: [{ vendorModelId: 'held', label: 'Held' }],
    });
  }
  return { baseUrl, ws: `/api/v1/workspaces/${slug}`, apiKey: key.key as string };
}
