/**
 * A model call that broke off outside the provider (its model thread stopped); `partialText` is the
 * model's text streamed before that.
 */
export class InterruptedModelCall extends Error {
  readonly partialText: string;
  constructor(partialText: string, cause: unknown) {
    super(`the model call broke off: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'InterruptedModelCall';
    this.partialText = partialText;
  }
}
