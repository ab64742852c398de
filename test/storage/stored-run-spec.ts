import type { RunSpec } from '../../src/domain/run-spec.ts';

/** The spec of a run the storage suites store and read back: nothing executes it. */
export const STORED_RUN_SPEC: RunSpec = {
  prompt: 'hi',
  effective: {
    systemPrompt: 'You are terse.',
    model: { ref: 'platform:off_test', id: 'mock/echo', provider: 'mock', vendorModelId: 'echo' },
    reasoningLevel: null,
    tools: [],
    localToolTimeoutMs: 300_000,
  },
};
