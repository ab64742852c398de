/** The set-up the hosted-endpoint tests on a fake provider share (A2A v0.3 and 1.0). */
import { after, afterEach, before } from 'node:test';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { deferred, type Deferred } from '../support/waits.ts';
import { a2aPeer, createAgent, endpointPath, type A2aPeer } from './a2a-support.ts';

export interface HostedConcierge {
  fixture: RunFixture;
  /** The path of the agent's endpoint. */
  endpoint: string;
  peer: A2aPeer;
  /** A reply the fake provider holds until the test releases it (or the test ends). */
  held(text: string): Deferred;
}

/**
 * Registers, in the calling suite, a run fixture on a fake Anthropic provider with the agent
 * `concierge` (`agent` is the rest of its definition) and an A2A peer of it, reading the card at
 * `cardPath` under the endpoint, in `version`; after each test the held replies are released and
 * the runs cleaned up. The fields are set once the suite's `before` hooks have run.
 */
export function hostedConcierge(
  agent: Record<string, unknown>,
  peer: { cardPath?: string; version?: '0.3' | '1.0' } = {},
): HostedConcierge {
  const holds: Deferred[] = [];
  const hosted = {
    held(text: string) {
      const hold = deferred();
      holds.push(hold);
      hosted.fixture.fake.enqueue({ text: [text], holdUntil: hold.promise });
      return hold;
    },
  } as HostedConcierge;
  before(async () => {
    const fixture = await startRunFixture('anthropic-messages');
    hosted.fixture = fixture;
    await createAgent(fixture.server, fixture.slug, { name: 'Concierge', ...agent });
    hosted.endpoint = endpointPath(fixture.slug, 'concierge');
    hosted.peer = await a2aPeer(
      `${fixture.server.baseUrl}${hosted.endpoint}${peer.cardPath ?? ''}`,
      fixture.headers,
      peer.version,
    );
  });
  after(() => hosted.fixture.close());
  afterEach(async () => {
    for (const hold of holds.splice(0)) hold.resolve();
    await hosted.fixture.cleanUp();
  });
  return hosted;
}
