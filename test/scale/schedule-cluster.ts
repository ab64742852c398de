/** Workspace `acme` on the offline mock models, for the scale-out schedule tests. */
export interface SchedulingWorkspace {
  key: string;
  /** A stored agent on `mock/echo` (runs end at once). */
  echoAgentId: string;
  /** A stored agent on `mock/slow-echo` (about 20 ms a word). */
  slowAgentId: string;
}

export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers
}

export async function jsonCall(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Creates workspace `acme`, its API key and two agents on the mock provider through the admin API. */
export async function provisionScheduling(baseUrl: string, adminToken: string): Promise<SchedulingWorkspace> {
  const admin = async (path: string, body: unknown) => {
    const answer = await jsonCall(
      `${baseUrl}/admin/v1${path}`,
      'POST',
      { authorization: `Bearer ${adminToken}` },
      body,
    );
    if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as Record<string, string>;
  };
  await admin('/offerings', { provider: 'mock', vendorModelId: 'echo' });
  await admin('/offerings', { provider: 'mock', vendorModelId: 'slow-echo' });
  await admin('/workspaces', { slug: 'acme' });
  const { key } = await admin('/workspaces/acme/api-keys', {});
  const echo = await admin('/workspaces/acme/agents', {
    name: 'Echo',
    systemPrompt: 's',
    modelId: 'mock/echo',
  });
  const slow = await admin('/workspaces/acme/agents', {
    name: 'Slow',
    systemPrompt: 's',
    modelId: 'mock/slow-echo',
  });
  return { key: key!, echoAgentId: echo.id!, slowAgentId: slow.id! };
}

/** Every fired run of a schedule, oldest first, through the paged runs route. */
export async function scheduleRuns(
  ws: string,
  headers: Record<string, string>,
  scheduleId: string,
): Promise<Array<{ runId: string; scheduledFor: string; createdAt: string }>> {
  const runs = [];
  let cursor: string | null = null;
  do {
    const page: Answer = await jsonCall(
      `${ws}/schedules/${scheduleId}/runs?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      'GET',
      headers,
    );
    if (page.status !== 200) throw new Error(`runs of ${scheduleId}: ${page.status}`);
    runs.push(...page.body.runs);
    cursor = page.body.nextCursor;
  } while (cursor);
  return runs.reverse();
}

/** The gaps between consecutive scheduled times, in milliseconds. */
export function gapsOf(runs: ReadonlyArray<{ scheduledFor: string }>): number[] {
  const times = runs.map((run) => Date.parse(run.scheduledFor));
  return times.slice(1).map((time, index) => time - times[index]!);
}
