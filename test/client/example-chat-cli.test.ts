import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, childEnv, REPO } from '../support/cli.ts';
import { WAIT_CAP_MS } from '../support/waits.ts';
import { embeddedOnly } from '../support/deployment.ts';

const CHAT_CLI = join(REPO, 'packages/client/examples/chat-cli.ts');
const LISTENING = /^listening on (http:\/\/\S+)$/m;
const PRINTED_KEY = /Authorization: Bearer (svc_[A-Za-z0-9]+)/;

/** A child process whose stdout is collected, with waits on what it prints. */
class Child {
  readonly process: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  #onOutput: Array<() => void> = [];

  constructor(args: readonly string[], env: Record<string, string>) {
    this.process = spawn(process.execPath, args, { cwd: REPO, env: childEnv(env) });
    const notify = () => this.#onOutput.forEach((listener) => listener());
    this.process.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      notify();
    });
    this.process.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      notify();
    });
    this.exited = new Promise((resolve) =>
      this.process.on('exit', (code) => {
        resolve(code);
        notify();
      }),
    );
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** The first match of `pattern` in stdout after `from` (a stdout length). */
  waitFor(pattern: RegExp, from = 0): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.stdout.slice(from));
        if (match) return done(() => resolve(match));
        if (!this.running) done(() => reject(new Error(`exited before ${pattern}\n${this.describe()}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no ${pattern} within ${WAIT_CAP_MS} ms\n${this.describe()}`))),
        WAIT_CAP_MS,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.#onOutput = this.#onOutput.filter((listener) => listener !== check);
        settle();
      };
      this.#onOutput.push(check);
      check();
    });
  }

  describe(): string {
    return `stdout: ${this.stdout}\nstderr: ${this.stderr}`;
  }

  kill(): void {
    if (this.running) this.process.kill('SIGKILL');
  }
}

describe(
  'the chat CLI example against `npm start`',
  embeddedOnly('`npm start` is the embedded deployment'),
  () => {
    let dir: string;
    let service: Child;
    let chat: Child | undefined;
    let env: Record<string, string>;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'agent-runs-chat-cli-'));
      // What `npm start` runs, on a fresh database and a free port.
      service = new Child([BIN, 'dev'], { PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'agent-runs.db')}` });
      const [, baseUrl = ''] = await service.waitFor(LISTENING);
      const [, apiKey = ''] = await service.waitFor(PRINTED_KEY);
      env = { AGENT_RUNS_URL: baseUrl, AGENT_RUNS_WORKSPACE: 'default', AGENT_RUNS_API_KEY: apiKey };
    });

    after(async () => {
      chat?.kill();
      service.process.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const stopped = await Promise.race([
        service.exited.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), WAIT_CAP_MS))),
      ]);
      clearTimeout(timer);
      if (!stopped) service.kill();
      rmSync(dir, { recursive: true, force: true });
    });

    it('chats with streamed replies, answering the local tool and the MCP bridge, then quits cleanly', async () => {
      chat = new Child(['--conditions=@agent-runs/source', CHAT_CLI], env);
      await chat.waitFor(/Session \S+\. Type a message/);
      await chat.waitFor(/you> $/);

      /** Types a line and returns what the agent printed in reply (up to the next prompt). */
      const say = async (line: string): Promise<string> => {
        const from = chat!.stdout.length;
        chat!.process.stdin.write(`${line}\n`);
        const [reply = ''] = await chat!.waitFor(/agent> [\s\S]*?\nyou> $/, from);
        return reply;
      };

      assert.match(await say('hello there'), /You said: hello there/);

      const time = await say('call get_time {"timeZone":"Europe/Paris"}');
      assert.match(time, /\[get_time \{"timeZone":"Europe\/Paris"\}\]/);
      assert.match(time, /Tool get_time returned: .*\d{4}.*\(Europe\/Paris\)/);

      assert.match(
        await say('call add_note {"text":"buy milk"}'),
        /Tool add_note returned: Noted \(1 in total\)\./,
      );
      assert.match(
        await say('call add_note {"text":"call mum"}'),
        /Tool add_note returned: Noted \(2 in total\)\./,
      );
      const listed = await say('call list_notes {}');
      assert.match(listed, /\[tool result: 1\. buy milk\n2\. call mum\]/);
      assert.match(listed, /Tool list_notes returned: 1\. buy milk\n2\. call mum/);

      assert.match(await say('call clear_notes {}'), /Tool clear_notes returned: All notes deleted\./);
      assert.match(await say('call list_notes {}'), /Tool list_notes returned: No notes\./);

      chat.process.stdin.end();
      assert.equal(await chat.exited, 0, chat.describe());
      assert.match(chat.stdout, /Bye\.\n$/);
    });
  },
);
