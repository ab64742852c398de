const FORCED_EXIT_MS = 15_000;
const PARENT_CHECK_MS = 500;

/**
 * Runs `stop` once on the first SIGTERM or SIGINT, then exits; a stop that hangs is cut short.
 * The same happens when the process that launched this one is gone: `npm start` and `npx` run
 * the server under `sh -c`, and a shell such as dash dies on SIGTERM without passing it on,
 * which would leave the server running orphaned.
 */
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
  const launcher = process.ppid;
  // Started by init or a container runtime (pid 1, or 0 outside the namespace): there is no launcher to lose.
  if (launcher > 1) {
    setInterval(() => {
      if (process.ppid !== launcher) handle('SIGHUP');
    }, PARENT_CHECK_MS).unref();
  }
}
