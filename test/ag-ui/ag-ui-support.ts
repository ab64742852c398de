/** Shared helpers of the AG-UI endpoint tests: the official `@ag-ui/client` HttpAgent as the front end. */
import { HttpAgent, type RunAgentParameters } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import type { TestServer } from '../support/test-server.ts';
import { WAIT_CAP_MS, withCap } from '../support/waits.ts';

/** The AG-UI endpoint path of an agent. */
export function agUiPath(workspaceSlug: string, agentSlug: string): string {
  return `/api/ag-ui/${workspaceSlug}/agents/${agentSlug}`;
}

/** A front end's agent for one thread (a new one unless `threadId` is given). */
export function frontEnd(
  server: TestServer,
  workspaceSlug: string,
  agentSlug: string,
  headers: Record<string, string>,
  threadId?: string,
): HttpAgent {
  return new HttpAgent({
    url: `${server.baseUrl}${agUiPath(workspaceSlug, agentSlug)}`,
    headers,
    ...(threadId !== undefined && { threadId }),
  });
}

/** What one run of the front end saw: every event in order, and how `runAgent` ended. */
export interface FrontEndRun {
  events: BaseEvent[];
  types: string[];
  error: unknown;
}

/**
 * Runs the agent once as a front end does (the agent's messages so far, plus the thread's new
 * message added by the caller), collecting its events; a failure is returned, not thrown.
 */
export async function runOnce(agent: HttpAgent, parameters: RunAgentParameters = {}): Promise<FrontEndRun> {
  const events: BaseEvent[] = [];
  let error: unknown;
  const run = agent
    .runAgent(parameters, {
      onEvent: ({ event }) => {
        events.push(event);
      },
    })
    .catch((caught: unknown) => {
      error = caught;
    });
  await withCap(
    run,
    WAIT_CAP_MS,
    () => `the AG-UI run did not end; got ${events.map((e) => e.type).join(', ')}`,
  );
  return { events, types: events.map((event) => event.type), error };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on any field of any event
type LooseEvent = Record<string, any>;

/** The events of one type, typed loosely for assertions. */
export function eventsOf(run: FrontEndRun, type: string): LooseEvent[] {
  return run.events.filter((event) => event.type === type);
}

export function userMessage(content: string) {
  return { id: crypto.randomUUID(), role: 'user' as const, content };
}
