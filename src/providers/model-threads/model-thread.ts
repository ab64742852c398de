/**
 * A model thread's entry point: runs the model calls the event loop's thread sends it
 * (provider request, stream parsing, the AI SDK) and posts their deltas and outcomes back,
 * batched once per turn of this thread's event loop.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { ModelTurnError } from '../../engine/ports.ts';
import { inThreadModelPort } from '../model-port.ts';
import { decodeCall, type FromModelThread, type ToModelThread } from './messages.ts';

const port: MessagePort = parentPort ?? fail('model-thread.ts runs as a worker thread');

const running = new Map<number, AbortController>();
let outbox: FromModelThread[] = [];

function send(message: FromModelThread): void {
  if (outbox.length === 0) setImmediate(flush);
  outbox.push(message);
}

function flush(): void {
  const batch = outbox;
  outbox = [];
  try {
    port.postMessage(batch);
  } catch {
    // Something in the batch cannot be cloned: send the rest, and fail only the call it belongs to.
    for (const message of batch) {
      try {
        port.postMessage([message]);
      } catch (error) {
        if ('id' in message)
          port.postMessage([{ kind: 'crashed', id: message.id, message: describe(error) }]);
      }
    }
  }
}

function fail(message: string): never {
  throw new Error(message);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

globalThis.AI_SDK_LOG_WARNINGS = ({ warnings, provider, model }) =>
  send({ kind: 'warnings', provider, model, warnings });

async function run(id: number, message: Extract<ToModelThread, { kind: 'call' }>): Promise<void> {
  const controller = new AbortController();
  running.set(id, controller);
  try {
    const turn = await inThreadModelPort.call(decodeCall(message.call), controller.signal, {
      onText: (text) => send({ kind: 'text', id, text }),
      onThinking: (text) => send({ kind: 'thinking', id, text }),
    });
    send({ kind: 'done', id, turn });
  } catch (error) {
    // An aborted call was already settled on the other side.
    if (controller.signal.aborted) return;
    if (error instanceof ModelTurnError) {
      const { failure, partialText, emittedOutput } = error;
      send({ kind: 'failed', id, failure, partialText, emittedOutput });
    } else {
      send({ kind: 'crashed', id, message: describe(error) });
    }
  } finally {
    running.delete(id);
  }
}

port.on('message', (message: ToModelThread) => {
  if (message.kind === 'abort') running.get(message.id)?.abort();
  else void run(message.id, message);
});
