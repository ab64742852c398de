/**
 * Deltas a regenerated turn must not send again. When a worker takes over a
 * run in the middle of a model turn, the turn is generated anew; while the new
 * text repeats what the client already received, nothing is emitted, and only
 * the continuation goes out. If the new reply departs from the old one, the
 * rest is emitted as it comes (the turn's `assistant_message` is authoritative).
 */
export class ReplayedPrefix {
  #pending: string;

  constructor(alreadySent: string) {
    this.#pending = alreadySent;
  }

  /** The part of `delta` still to emit ('' when all of it was already sent). */
  unsent(delta: string): string {
    if (this.#pending === '') return delta;
    if (this.#pending.startsWith(delta)) {
      this.#pending = this.#pending.slice(delta.length);
      return '';
    }
    if (delta.startsWith(this.#pending)) {
      const rest = delta.slice(this.#pending.length);
      this.#pending = '';
      return rest;
    }
    this.#pending = '';
    return delta;
  }
}
