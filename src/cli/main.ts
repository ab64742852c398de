import { processIo } from './cli-io.ts';
import { runCommand } from './run-command.ts';

void runCommand(process.argv.slice(2), processIo()).then((code) => {
  if (code !== undefined) process.exitCode = code;
});
