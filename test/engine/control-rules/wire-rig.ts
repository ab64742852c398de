import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';
import type { ResolvedModel } from '../../../src/domain/model.ts';
import { startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { startFakeOpenAIChat } from '../../fakes/fake-openai-chat.ts';
import type { FakeProviderServer } from '../../fakes/scripted-reply.ts';
import { fakeProviderModel, openLoopHarness, type LoopHarness } from '../../support/turn-loop-harness.ts';

/** The wire protocols the control rules run over, each spoken by its fake provider on loopback. */
export const WIRES = ['openai-chat', 'anthropic-messages'] as const;
export type WireApi = (typeof WIRES)[number];

const FAKES = { 'openai-chat': startFakeOpenAIChat, 'anthropic-messages': startFakeAnthropic } as const;

/** What a suite of control rules runs on: the loop harness, the fake provider and its model. */
export interface WireRig {
  harness(): LoopHarness;
  fake(): FakeProviderServer;
  model(): ResolvedModel;
}

/**
 * Registers the suite's hooks (call it inside `describe`): a fake provider of `api` and a loop
 * harness for the suite, no unexpected run failure and a reset fake after each test.
 */
export function wireRig(api: WireApi): WireRig {
  let harness: LoopHarness | undefined;
  let fake: FakeProviderServer | undefined;
  before(async () => {
    fake = await FAKES[api]();
    harness = await openLoopHarness();
  });
  after(async () => {
    await harness?.close();
    await fake?.close();
  });
  afterEach(() => {
    assert.deepEqual(harness?.errorLogs, [], 'no run stopped unexpectedly');
    fake?.reset();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is used before the suite started it`);
    return value;
  };
  return {
    harness: () => started(harness, 'the loop harness'),
    fake: () => started(fake, 'the fake provider'),
    model: () => fakeProviderModel(api, started(fake, 'the fake provider').url),
  };
}
