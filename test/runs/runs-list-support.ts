import type { RunFixture } from '../support/run-fixture.ts';

/**
 * Replies by the run's prompt, so runs of every outcome can go at once: `please-call-tool` calls
 * get_weather (`toolu_w`) and, once answered, says 'Sunny.'; `please-fail` is refused by the provider
 * (400, not retried); `please-hang` is never answered; any other prompt gets the fake's 'ok'.
 */
export function scriptByPrompt(fixture: RunFixture): void {
  fixture.fake.replyWith((body) => {
    const wire = JSON.stringify(body);
    if (wire.includes('please-call-tool')) {
      return wire.includes('tool_result')
        ? { text: ['Sunny.'] }
        : { toolCalls: [{ id: 'toolu_w', name: 'get_weather', input: { city: 'Paris' } }] };
    }
    if (wire.includes('please-fail')) return { type: 'http-error', status: 400 };
    if (wire.includes('please-hang')) return { type: 'hang' };
    return undefined;
  });
}
