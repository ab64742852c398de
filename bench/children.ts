import { fork, type ChildProcess } from 'node:child_process';
import type { ChildCommand, ChildMessage } from './ipc.ts';

export interface BenchChild {
  url: string;
  info: Record<string, unknown>;
  pid: number;
  call<T>(cmd: ChildCommand): Promise<T>;
  /** Asks the child to stop cleanly and waits for it to exit (killed after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | null>;
}

/** Forks one bench helper (a .ts file beside this one) and waits for its `ready` message. */
export async function startChild(
  file: string,
  options: {
    env?: NodeJS.ProcessEnv;
    execArgv?: string[];
    readyTimeoutMs?: number;
    /** A file descriptor for the child's stdout (default: the bench's own stdout). */
    stdout?: number;
  } = {},
): Promise<BenchChild> {
  const child: ChildProcess = fork(new URL(file, import.meta.url), [], {
    env: options.env ?? process.env,
    execArgv: options.execArgv ?? [],
    stdio: ['ignore', options.stdout ?? 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const ready = await new Promise<Extract<ChildMessage, { type: 'ready' }>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${file} did not report ready`)),
      options.readyTimeoutMs ?? 30_000,
    );
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready`)));
    child.on('message', (raw) => {
      const message = raw as ChildMessage;
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message);
      } else if (message.id !== undefined) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.type === 'reply') waiter?.resolve(message.result);
        else waiter?.reject(new Error(message.message));
      }
    });
  });
  void exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${file} exited`));
    pending.clear();
  });

  return {
    url: ready.url,
    info: ready.info ?? {},
    pid: child.pid as number,
    call<T>(cmd: ChildCommand): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: (value) => resolve(value as T), reject });
        child.send({ id, cmd });
      });
    },
    async stop(timeoutMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.send({ id: nextId++, cmd: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
