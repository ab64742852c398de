import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WAIT_CAP_MS } from '../support/waits.ts';

/**
 * A PostgreSQL cluster and a Redis server of a test's own, on free loopback ports, that the test can
 * stop and start again (same port, same data for PostgreSQL; Redis comes back empty, as a Redis
 * without persistence does). Never the machine's shared servers: stopping those would break every
 * other test on the machine.
 */
export interface PrivateServer {
  url: string;
  port: number;
  /** Stops the server as an operator would (PostgreSQL: `pg_ctl stop -m fast`; Redis: SIGTERM). */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it if it runs and deletes its files. */
  destroy(): Promise<void>;
}

const run = promisify(execFile);

/** A port nothing listens on now (the kernel's pick for port 0, released at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

/** The newest PostgreSQL server binaries installed (Debian layout: /usr/lib/postgresql/<version>/bin). */
function postgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (newest === undefined) throw new Error(`no PostgreSQL server binaries under ${root}`);
  return join(root, newest, 'bin');
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` OS user. */
function asPostgresUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function postgresUserIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) =>
    Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Servers a test forgot (it failed before its `after`): stopped when the test process exits. */
const leftovers = new Set<() => void>();
process.once('exit', () => {
  for (const stop of leftovers) stop();
});

/**
 * A fresh PostgreSQL cluster (`initdb`, trust authentication on loopback), started. `settings`
 * (`name=value`) come after the test defaults and override them (the bench restores fsync).
 */
export async function startPrivatePostgres(settings: readonly string[] = []): Promise<PrivateServer> {
  const bin = postgresBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'agent-runs-pg-'));
  const data = join(dir, 'data');
  const sockets = join(dir, 'sockets');
  mkdirSync(sockets);
  const owner = postgresUserIds();
  if (owner) for (const path of [dir, sockets]) chownSync(path, owner.uid, owner.gid);
  const pgCtl = (args: string[]) => {
    const [command, argv] = asPostgresUser(join(bin, 'pg_ctl'), args);
    return run(command, argv, { timeout: WAIT_CAP_MS });
  };
  const [initdb, initArgs] = asPostgresUser(join(bin, 'initdb'), [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
  ]);
  await run(initdb, initArgs, { timeout: WAIT_CAP_MS });
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${sockets}`,
    '-c listen_addresses=127.0.0.1',
    // A test database: durability is not what is tested, and fsync on a shared disk is slow.
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
    ...settings.map((setting) => `-c ${setting}`),
  ].join(' ');
  let running = false;
  const start = async () => {
    await pgCtl(['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    running = true;
  };
  const stopNow = () => {
    if (!running) return;
    const [command, argv] = asPostgresUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
    spawnSync(command, argv, { timeout: 10_000 });
    running = false;
  };
  leftovers.add(stopNow);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      await pgCtl(['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      running = false;
    },
    start,
    destroy: async () => {
      leftovers.delete(stopNow);
      stopNow();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis server without persistence (`--save "" --appendonly no`), started. */
export async function startPrivateRedis(): Promise<PrivateServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'agent-runs-redis-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    const server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = server;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), WAIT_CAP_MS);
      server.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      server.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${output}`));
      });
    });
    // Read on, so a full pipe never blocks the server.
    server.stdout.resume();
    server.stderr.resume();
  };
  const stopNow = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  leftovers.add(stopNow);
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      const server = child;
      if (!server || server.exitCode !== null || server.signalCode !== null) return;
      const exited = once(server, 'exit');
      server.kill('SIGTERM');
      await exited;
    },
    start,
    destroy: async () => {
      leftovers.delete(stopNow);
      const server = child;
      if (server && server.exitCode === null && server.signalCode === null) {
        const exited = once(server, 'exit');
        server.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
