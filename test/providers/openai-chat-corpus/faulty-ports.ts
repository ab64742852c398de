import {
  ModelTurnError,
  type CompletedTurn,
  type ModelCall,
  type ModelPort,
  type ModelTurnOutput,
} from '../../../src/engine/ports.ts';
import { zeroUsage } from '../../../src/domain/usage.ts';
import type { NamedPort } from './port-capture.ts';

/**
 * Ports that differ from the one they wrap in one small way each: the differential suites must tell
 * them apart from it (see openai-chat-differential-harness.test.ts).
 */

function wrap(
  name: string,
  inner: ModelPort,
  change: {
    output?: (output: ModelTurnOutput) => { output: ModelTurnOutput; settle(): void };
    turn?: (turn: CompletedTurn) => CompletedTurn;
    error?: (error: ModelTurnError) => ModelTurnError;
    call?: (call: ModelCall) => ModelCall;
  },
): NamedPort {
  return {
    name,
    port: {
      close: () => inner.close(),
      async call(call, signal, output) {
        const wrapped = change.output?.(output) ?? { output, settle: () => {} };
        try {
          const turn = await inner.call(change.call?.(call) ?? call, signal, wrapped.output);
          wrapped.settle();
          return change.turn?.(turn) ?? turn;
        } catch (error) {
          wrapped.settle();
          if (error instanceof ModelTurnError && change.error) throw change.error(error);
          throw error;
        }
      },
    },
  };
}

/** Holds each delta back until the next one: the last delta of a call is never sent. */
export const droppingLastDelta = (inner: ModelPort): NamedPort =>
  wrap('a port that drops the last delta', inner, {
    output: (output) => {
      let held: (() => void) | undefined;
      const hold = (send: () => void) => {
        held?.();
        held = send;
      };
      return {
        output: {
          onText: (text) => hold(() => output.onText(text)),
          onThinking: (text) => hold(() => output.onThinking(text)),
        },
        settle: () => {},
      };
    },
  });

/** Sends consecutive text deltas as one when the call settles (same text, fewer deltas). */
export const mergingTextDeltas = (inner: ModelPort): NamedPort =>
  wrap('a port that merges text deltas', inner, {
    output: (output) => {
      let pending = '';
      const flush = () => {
        if (pending !== '') output.onText(pending);
        pending = '';
      };
      return {
        output: {
          onText: (text) => (pending += text),
          onThinking: (text) => {
            flush();
            output.onThinking(text);
          },
        },
        settle: flush,
      };
    },
  });

/** Reports one more output token. */
export const inflatingUsage = (inner: ModelPort): NamedPort =>
  wrap('a port that counts one more output token', inner, {
    turn: (turn) => ({ ...turn, usage: { ...turn.usage, outputTokens: turn.usage.outputTokens + 1 } }),
  });

/** Sends the call with another API key. */
export const withAnotherKey = (inner: ModelPort): NamedPort =>
  wrap('a port that sends another key', inner, {
    call: (call) => ({ ...call, model: { ...call.model, apiKey: 'sk-another-key-0123456789' } }),
  });

/** Gives each tool call a fresh id in `toolCalls` but leaves the response message as it was. */
export const renamingToolCallsOnly = (inner: ModelPort): NamedPort =>
  wrap('a port whose tool calls and response message disagree on ids', inner, {
    turn: (turn) => ({
      ...turn,
      toolCalls: turn.toolCalls.map((call, index) => ({ ...call, id: `made-up-${index}-${call.id.length}` })),
    }),
  });

/** Classifies every provider failure as not retryable. */
export const neverRetryable = (inner: ModelPort): NamedPort =>
  wrap('a port that marks failures not retryable', inner, {
    error: (error) =>
      new ModelTurnError({ ...error.failure, retryable: false }, error.partialText, error.emittedOutput),
  });

/** Loses the partial text of a failed call. */
export const losingPartialText = (inner: ModelPort): NamedPort =>
  wrap('a port that loses the partial text', inner, {
    error: (error) => new ModelTurnError(error.failure, '', error.emittedOutput),
  });

/** Parses tool-call arguments that are not JSON as `{}` (instead of keeping the raw text). */
export const emptyInputForBadArguments = (inner: ModelPort): NamedPort =>
  wrap('a port that turns unparsable arguments into {}', inner, {
    turn: (turn) => ({
      ...turn,
      toolCalls: turn.toolCalls.map((call) =>
        typeof call.input === 'string' ? { ...call, input: {} } : call,
      ),
    }),
  });

/**
 * A naive OpenAI chat parser (text deltas only) that decodes each read of the body on its own and
 * splits it into lines without carrying a partial line over: right only when every write holds whole
 * events. The split property must tell it apart, which also shows the fake's writes reach the client
 * as separate reads.
 */
export const decodingEachRead: NamedPort = {
  name: 'a parser that decodes and splits each read on its own',
  port: {
    close: async () => {},
    async call(call, signal, output) {
      const response = await fetch(`${call.model.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: call.model.vendorModelId, messages: [], stream: true }),
        signal,
      });
      let text = '';
      for await (const read of response.body ?? []) {
        for (const line of Buffer.from(read).toString('utf8').split(/\r?\n/)) {
          if (!line.startsWith('data:') || line.includes('[DONE]')) continue;
          try {
            const chunk = JSON.parse(line.slice(5)) as { choices?: Array<{ delta?: { content?: unknown } }> };
            const content = chunk.choices?.[0]?.delta?.content;
            if (typeof content === 'string' && content !== '') {
              text += content;
              output.onText(content);
            }
          } catch {
            // a line cut by the read: lost
          }
        }
      }
      return { text, finishReason: 'end_turn', toolCalls: [], usage: zeroUsage(), responseMessages: [] };
    },
  },
};
