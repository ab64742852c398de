import { RunCancelled } from './abort-reasons.ts';

/** Why a control ended a turn mid-stream (a review's verdict on the reasoning so far). */
export class TurnCutByControl extends Error {
  override name = 'TurnCutByControl';
  constructor() {
    super('the turn was ended by a run control');
  }
}

/**
 * The abort signal of one model call. The service stopping aborts it at any
 * time; a cancel only while the call has not answered yet: a cancelled run
 * stops between turns, so a turn that is answering completes, while a call
 * still waiting for its first output has no turn to finish (a cancel by a
 * later session message's `interrupt` or `rollback` cuts it at any time). A
 * control may cut the turn at any time.
 */
export class ModelCallAbort {
  readonly #controller = new AbortController();
  #answered = false;
  readonly #stop: AbortSignal;
  readonly #cancel: AbortSignal;

  /** `stop`: the service stopping; `cancel`: aborted on cancel (and on stop). */
  constructor(stop: AbortSignal, cancel: AbortSignal) {
    this.#stop = stop;
    this.#cancel = cancel;
    if (stop.aborted) this.#onStop();
    else stop.addEventListener('abort', this.#onStop, { once: true });
    if (cancel.aborted) this.#onCancel();
    else cancel.addEventListener('abort', this.#onCancel, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether a control cut the turn (rather than a stop or a cancel). */
  get cutByControl(): boolean {
    return this.#controller.signal.reason instanceof TurnCutByControl;
  }

  /** The call has streamed output: from now on only the service stopping (or a control) aborts it. */
  answered(): void {
    this.#answered = true;
  }

  cut(): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(new TurnCutByControl());
  }

  dispose(): void {
    this.#stop.removeEventListener('abort', this.#onStop);
    this.#cancel.removeEventListener('abort', this.#onCancel);
  }

  readonly #onStop = (): void => {
    this.#controller.abort(this.#stop.reason);
  };

  readonly #onCancel = (): void => {
    const reason: unknown = this.#cancel.reason;
    if (!this.#answered || (reason instanceof RunCancelled && reason.cutsTurn))
      this.#controller.abort(reason);
  };
}
