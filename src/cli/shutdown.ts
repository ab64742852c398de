const FORCED_EXIT_MS = 15_000;

/** Runs `stop` once on the first SIGTERM or SIGINT, then exits; a stop that hangs is cut short. */
export function onShutdownSignal(stop: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      process.stderr.write(`shutdown took longer than ${FORCED_EXIT_MS} ms; exiting\n`);
      process.exit(1);
    }, FORCED_EXIT_MS).unref();
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
