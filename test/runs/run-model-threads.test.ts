import { describe, it } from 'node:test';
import { assertPlainHelloWorldRun, startRunFixture } from '../support/run-fixture.ts';

const HELLO_WORLD = {
  text: ['Hello', ', world.'],
  usage: { inputTokens: 100, cachedTokens: 60, outputTokens: 20, reasoningTokens: 5 },
};

// The rest of the suite runs with the default (model threads on a machine with more than one core);
// these pin both settings, so each path is covered wherever the suite runs.
describe('AGENT_RUNS_MODEL_THREADS: where model calls run does not change what a client sees', () => {
  for (const threads of ['0', '2']) {
    it(`with AGENT_RUNS_MODEL_THREADS=${threads} a run streams its deltas, assistant_message and result with usage`, async () => {
      const fixture = await startRunFixture('openai-chat', {
        env: { AGENT_RUNS_MODEL_THREADS: threads },
        script: [HELLO_WORLD],
      });
      try {
        const { frames } = await fixture.runToEnd({ systemPrompt: 'You are terse.', prompt: 'hi' });
        assertPlainHelloWorldRun(frames, 'fake-model');
      } finally {
        await fixture.close();
      }
    });
  }
});
