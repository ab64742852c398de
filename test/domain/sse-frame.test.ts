import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { RunEventType } from '../../src/domain/run-events.ts';
import { dataJsonOfFrame, sseFrame } from '../../src/domain/sse-frame.ts';

describe('SSE frames', () => {
  it('a frame carries its event: data as the client parses it, and the serialized data given back exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.constantFrom<RunEventType>('assistant_delta', 'tool_call', 'local_tool_call', 'result', 'error'),
        fc.jsonValue(),
        (seq, type, data) => {
          const dataJson = JSON.stringify(data);
          const frame = sseFrame(seq, type, dataJson);
          assert.equal(dataJsonOfFrame(seq, type, frame), dataJson);
          const dataLine = frame.split('\n').find((line) => line.startsWith('data: ')) ?? '';
          assert.deepEqual(JSON.parse(dataLine.slice('data: '.length)), {
            seq,
            type,
            data: JSON.parse(dataJson),
          });
        },
      ),
    );
  });

  it('the frame of another event is refused, not misread', () => {
    const frame = sseFrame(7, 'assistant_delta', '{"text":"hi"}');
    assert.throws(() => dataJsonOfFrame(8, 'assistant_delta', frame), /not the SSE frame of event 8/);
    assert.throws(() => dataJsonOfFrame(7, 'result', frame), /not the SSE frame of event 7/);
  });
});
