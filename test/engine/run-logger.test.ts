import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { newRunTraceContext } from '../../src/domain/trace-context.ts';
import { runLogger } from '../../src/engine/lifecycle/run-logger.ts';

function capture(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe("a run's log lines carry its runId, traceId and spanId (extensions §3)", () => {
  it("every line of the run's logger names the run and its span of its stored trace", () => {
    const { logger, lines } = capture();
    const traceContext = newRunTraceContext(undefined);
    runLogger(logger, { id: 'run_1', traceContext }).info('run started');
    assert.equal(lines[0]?.runId, 'run_1');
    assert.equal(lines[0]?.traceId, traceContext.traceId);
    assert.equal(lines[0]?.spanId, traceContext.spanId);
  });

  it('a run stored without a trace context logs its runId alone', () => {
    const { logger, lines } = capture();
    runLogger(logger, { id: 'run_2', traceContext: null }).info('run started');
    assert.equal(lines[0]?.runId, 'run_2');
    assert.equal('traceId' in (lines[0] ?? {}), false);
  });
});
