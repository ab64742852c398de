import type { RecordedRequest } from '../fakes/scripted-reply.ts';

/** The most provider requests of `requests` that were ever in flight at once. */
export function mostInFlight(requests: readonly RecordedRequest[]): number {
  const edges = requests.flatMap((request) => [
    { at: request.receivedAt, delta: 1 },
    { at: request.respondedAt ?? Number.POSITIVE_INFINITY, delta: -1 },
  ]);
  // At one instant an end counts before a start: a slot freed is taken by the next run.
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let inFlight = 0;
  let most = 0;
  for (const edge of edges) {
    inFlight += edge.delta;
    most = Math.max(most, inFlight);
  }
  return most;
}

/** The `run <n>` label each request carries in its prompt, in the order the provider received them. */
export function runLabelsInOrder(requests: readonly RecordedRequest[]): string[] {
  return requests.map((request) => /run \d+/.exec(request.rawBody)?.[0] ?? '?');
}
