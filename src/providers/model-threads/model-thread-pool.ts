import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Logger } from 'pino';
import { assertNever } from '../../domain/assert-never.ts';
import {
  ModelTurnError,
  type CompletedTurn,
  type ModelCall,
  type ModelPort,
  type ModelTurnOutput,
} from '../../engine/ports.ts';
import { encodeCall, type FromModelThread, type ToModelThread } from './messages.ts';

const THREAD_ENTRY = new URL('./model-thread.ts', import.meta.url);

interface PendingCall {
  output: ModelTurnOutput;
  resolve(turn: CompletedTurn): void;
  reject(error: unknown): void;
  signal: AbortSignal;
  onAbort(): void;
}

/** One model thread and the calls it is running. */
class ModelThread {
  readonly #worker: Worker;
  readonly #calls = new Map<number, PendingCall>();
  readonly #logger: Logger;

  constructor(
    logger: Logger,
    resourceLimits: ResourceLimits | undefined,
    onExit: (thread: ModelThread) => void,
  ) {
    this.#logger = logger;
    this.#worker = new Worker(THREAD_ENTRY, {
      name: 'agent-runs model thread',
      ...(resourceLimits && { resourceLimits }),
    });
    // Only calls in flight keep the process alive (see #take).
    this.#worker.unref();
    this.#worker.on('message', (batch: FromModelThread[]) => {
      for (const message of batch) this.#receive(message);
    });
    this.#worker.on('error', (error) => logger.error({ err: error }, 'model thread failed'));
    this.#worker.on('exit', (code) => {
      for (const id of [...this.#calls.keys()]) {
        this.#take(id)?.reject(new Error(`the model thread stopped during the call (exit code ${code})`));
      }
      onExit(this);
    });
  }

  get load(): number {
    return this.#calls.size;
  }

  /** Throws, with nothing registered, when the call cannot be sent (a value that cannot be cloned). */
  start(id: number, call: ModelCall, pending: PendingCall): void {
    this.#post({ kind: 'call', id, call: encodeCall(call) });
    if (this.#calls.size === 0) this.#worker.ref();
    this.#calls.set(id, pending);
  }

  /** Forgets the call here (its promise is settled by the caller) and stops it on the thread. */
  abort(id: number): void {
    if (!this.#take(id)) return;
    this.#post({ kind: 'abort', id });
  }

  async terminate(): Promise<void> {
    await this.#worker.terminate();
  }

  #post(message: ToModelThread): void {
    this.#worker.postMessage(message);
  }

  #take(id: number): PendingCall | undefined {
    const call = this.#calls.get(id);
    if (!call) return undefined;
    this.#calls.delete(id);
    call.signal.removeEventListener('abort', call.onAbort);
    if (this.#calls.size === 0) this.#worker.unref();
    return call;
  }

  #receive(message: FromModelThread): void {
    switch (message.kind) {
      case 'text':
      case 'thinking': {
        const call = this.#calls.get(message.id);
        if (!call) return;
        try {
          if (message.kind === 'text') call.output.onText(message.text);
          else call.output.onThinking(message.text);
        } catch (error) {
          // As on one thread: output that cannot be taken fails the call.
          this.abort(message.id);
          call.reject(error);
        }
        return;
      }
      case 'done':
        this.#take(message.id)?.resolve(message.turn);
        return;
      case 'failed':
        this.#take(message.id)?.reject(
          new ModelTurnError(message.failure, message.partialText, message.emittedOutput),
        );
        return;
      case 'crashed':
        this.#take(message.id)?.reject(new Error(`the model call failed on its thread: ${message.message}`));
        return;
      case 'warnings':
        this.#logger.debug(
          { provider: message.provider, model: message.model, warnings: message.warnings },
          'model provider warnings',
        );
        return;
      default:
        assertNever(message);
    }
  }
}

export interface ModelThreadPoolOptions {
  threads: number;
  logger: Logger;
  /** Each thread's heap limits (V8's defaults when absent): a thread that exceeds them stops alone. */
  resourceLimits?: ResourceLimits;
}

/**
 * Runs model calls on worker threads beside the event loop's thread: the provider request,
 * the parsing of its stream and the AI SDK's per-chunk work (about half of a run's CPU) then
 * use other cores, and the event loop keeps to HTTP, the event log and SSE. Threads start on
 * demand, up to `threads`; each call goes to the least busy one. A thread that dies fails only
 * the calls it was running, and a new one takes its place.
 */
export class ModelThreadPool implements ModelPort {
  readonly #size: number;
  readonly #logger: Logger;
  readonly #resourceLimits: ResourceLimits | undefined;
  readonly #threads: ModelThread[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: ModelThreadPoolOptions) {
    if (!(Number.isInteger(options.threads) && options.threads > 0)) {
      throw new RangeError('a model thread pool needs at least one thread');
    }
    this.#size = options.threads;
    this.#logger = options.logger;
    this.#resourceLimits = options.resourceLimits;
  }

  call(call: ModelCall, signal: AbortSignal, output: ModelTurnOutput): Promise<CompletedTurn> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#closed) return Promise.reject(new Error('the model threads are closed'));
    const thread = this.#pick();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        thread.abort(id);
        reject(signal.reason);
      };
      thread.start(id, call, { output, resolve, reject, signal, onAbort });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Threads running now (they start on demand, or all at once with `start`). */
  get threadCount(): number {
    return this.#threads.length;
  }

  /** Starts every thread now, so that the first calls do not wait for one to load (~0.2 s here). */
  start(): void {
    while (!this.#closed && this.#threads.length < this.#size) this.#spawn();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.map((thread) => thread.terminate()));
  }

  #pick(): ModelThread {
    let best: ModelThread | undefined;
    for (const thread of this.#threads) if (!best || thread.load < best.load) best = thread;
    if (best && (best.load === 0 || this.#threads.length >= this.#size)) return best;
    return this.#spawn();
  }

  #spawn(): ModelThread {
    const thread = new ModelThread(this.#logger, this.#resourceLimits, (exited) => {
      const index = this.#threads.indexOf(exited);
      if (index >= 0) this.#threads.splice(index, 1);
      if (!this.#closed) this.#logger.warn('a model thread stopped; the next call starts a new one');
    });
    this.#threads.push(thread);
    return thread;
  }
}
