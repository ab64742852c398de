/** Where a command writes: the process's streams, or a test's buffers. */
export interface CliOutput {
  write(text: string): unknown;
}

/** What a command reads and writes besides its arguments, injected so tests can run it as a function. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: CliOutput;
  stderr: CliOutput;
}

export function processIo(): CliIo {
  return { env: process.env, stdout: process.stdout, stderr: process.stderr };
}
