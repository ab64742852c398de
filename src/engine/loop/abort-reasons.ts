import { isStoreUnavailable, type StoreUnavailableError } from '../../domain/errors.ts';

/** Abort reason when the run was cancelled by a client. */
export class RunCancelled extends Error {
  override name = 'RunCancelled';
  /** A later session message interrupts the run: the turn it is streaming is cut off, not finished. */
  readonly cutsTurn: boolean;
  constructor(cutsTurn = false) {
    super('run cancelled');
    this.cutsTurn = cutsTurn;
  }
}

/** Abort reason when the event log could not be written: the run cannot go on. */
export class EventLogFailure extends Error {
  override name = 'EventLogFailure';
  constructor(cause: unknown) {
    super(`event log write failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Abort reason when the process stops: the run is left unfinished for a restart to pick up. */
export class ServiceShutdown extends Error {
  override name = 'ServiceShutdown';
  constructor() {
    super('service shutting down');
  }
}

/** The store failure behind a stop, if a store failure it was: the failure itself, or the event-log commit it made fail. */
export function storeOutageOf(error: unknown): StoreUnavailableError | undefined {
  if (isStoreUnavailable(error)) return error;
  if (error instanceof EventLogFailure && isStoreUnavailable(error.cause)) return error.cause;
  return undefined;
}
