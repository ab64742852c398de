import type { PublishedEvent, RunEventBus, RunSignal, RunSignals } from '../engine/ports.ts';

/** Run channels inside one process (embedded mode): a listener set per run, no serialization. */
class Channels<T> {
  readonly #listeners = new Map<string, Set<(message: T) => void>>();

  listen(runId: string, listener: (message: T) => void): () => void {
    let set = this.#listeners.get(runId);
    if (!set) {
      set = new Set();
      this.#listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(runId) === set) this.#listeners.delete(runId);
    };
  }

  emit(runId: string, message: T): void {
    const set = this.#listeners.get(runId);
    if (!set) return;
    for (const listener of [...set]) listener(message);
  }
}

export class InProcessRunEventBus implements RunEventBus {
  readonly #channels = new Channels<PublishedEvent>();

  publish(runId: string, events: readonly PublishedEvent[]): void {
    for (const event of events) this.#channels.emit(runId, event);
  }

  async subscribe(runId: string, listener: (event: PublishedEvent) => void): Promise<() => void> {
    return this.#channels.listen(runId, listener);
  }
}

export class InProcessRunSignals implements RunSignals {
  readonly #channels = new Channels<RunSignal>();

  async send(runId: string, signal: RunSignal): Promise<void> {
    this.#channels.emit(runId, signal);
  }

  async listen(runId: string, listener: (signal: RunSignal) => void): Promise<() => void> {
    return this.#channels.listen(runId, listener);
  }
}
