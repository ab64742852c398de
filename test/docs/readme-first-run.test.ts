import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';
import { deferred, withCap, WAIT_CAP_MS, type Deferred } from '../support/waits.ts';
import { lineAt, readMarkdown, REPO } from './markdown.ts';
import { shellCommands, splitAssignments, type ShellCommand } from './shell-commands.ts';

/** The base URL the README's commands name: the test's own server stands in for `npm start`. */
const README_BASE_URL = 'http://127.0.0.1:8080';
const START = '<!-- quick-start:';
const END = '<!-- quick-start end -->';

/** The commands of the shell blocks between the README's quick-start markers, in order. */
function firstRunCommands(): ShellCommand[] {
  const readme = readMarkdown('README.md');
  const from = lineAt(readme.source, readme.source.indexOf(START));
  const to = lineAt(readme.source, readme.source.indexOf(END));
  assert.ok(readme.source.includes(START) && from < to, 'the README has no quick-start markers');
  return readme.blocks
    .filter((block) => block.language === 'sh' && block.line > from && block.line < to)
    .flatMap((block) => shellCommands(block.text));
}

/**
 * The SSE frames the README shows of the stream, as patterns: `…` stands for anything. They must be
 * what the stream sent, so that the seq numbers and fields shown do not go stale.
 */
function shownFrames(): RegExp[] {
  const readme = readMarkdown('README.md');
  return readme.blocks
    .filter((block) => block.language === 'text' && block.text.startsWith('id: '))
    .map((block) => {
      const escaped = block.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return new RegExp(escaped.split('…').join('.*?'));
    });
}

/** A command run by bash as the reader's shell would, with the variables set so far. */
interface ShellRun {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** Resolved once the output holds `text`. */
  waitFor(text: string): Promise<void>;
}

function runShell(source: string, variables: Record<string, string>): ShellRun {
  const child = spawn('bash', ['-c', source], {
    cwd: REPO,
    // curl must not take a proxy from the environment: every request goes to loopback.
    env: { ...process.env, ...variables, NO_PROXY: '*', no_proxy: '*' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ text: string; reached: Deferred }> = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const waiter of waiters) if (stdout.includes(waiter.text)) waiter.reached.resolve();
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    output: () => stdout + stderr,
    exited,
    waitFor(text) {
      const reached = deferred();
      waiters.push({ text, reached });
      if (stdout.includes(text)) reached.resolve();
      return withCap(reached.promise, WAIT_CAP_MS, () => `no '${text}' in: ${stdout}${stderr}`);
    },
  };
}

describe('the README: a first run with a client tool', () => {
  let server: TestServer;
  let key: string;
  const background: ShellRun[] = [];
  before(async () => {
    server = await startTestServer({ dev: true });
    ({ key } = await createWorkspaceWithKey(server, 'default'));
  });
  after(async () => {
    for (const run of background) run.child.kill();
    await server.close();
  });

  it('runs as written with curl: the run stops at the tool call, takes the answer and ends', async () => {
    const variables: Record<string, string> = {};
    const answers: string[] = [];
    /** The values the reader copies from what came before (the `…` placeholders of the README). */
    const copied: Record<string, () => Promise<string>> = {
      KEY: async () => key,
      RUN: async () => {
        const created: unknown = JSON.parse(answers.at(-1) ?? '{}');
        assert.ok(typeof created === 'object' && created !== null && 'runId' in created);
        return String(created.runId);
      },
      CALL: async () => {
        const stream = background.at(-1);
        assert.ok(stream, 'no stream is being followed');
        await stream.waitFor('event: local_tool_call');
        const frame = /event: local_tool_call\ndata: (.*)\n/.exec(stream.output());
        assert.ok(frame?.[1], stream.output());
        const event = JSON.parse(frame[1]) as { data: { toolUseId: string } };
        return event.data.toolUseId;
      },
    };
    const commands = firstRunCommands();
    for (const command of commands) {
      const { assignments, rest } = splitAssignments(command.words);
      if (rest.length === 0) {
        for (const { name, value } of assignments) {
          const fill = copied[name];
          if (value.includes('…')) assert.ok(fill, `the test does not know what to copy into ${name}`);
          variables[name] =
            value.includes('…') && fill ? await fill() : value.replace(README_BASE_URL, server.baseUrl);
        }
        continue;
      }
      assert.equal(rest[0], 'curl', `the first run holds a command the test does not run: ${command.source}`);
      const run = runShell(command.source, variables);
      if (command.background) {
        background.push(run);
        continue;
      }
      const code = await withCap(run.exited, WAIT_CAP_MS, () => `${command.source} did not finish`);
      assert.equal(code, 0, run.output());
      answers.push(run.output());
    }

    assert.equal(answers.length, 2, 'the first run creates a run and answers its tool call');
    assert.match(
      answers[0] ?? '',
      /"runId":"run_[^"]+","streamUrl":"\/api\/v1\/workspaces\/default\/agent-runs\//,
    );
    assert.deepEqual(JSON.parse(answers[1] ?? '{}'), { toolUseId: variables.CALL, accepted: true });
    const [stream] = background;
    assert.ok(stream, 'the README follows the stream in the background');
    assert.equal(
      await withCap(stream.exited, WAIT_CAP_MS, () => `the stream did not end: ${stream.output()}`),
      0,
    );
    const events = [...stream.output().matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    const order = ['local_tool_call', 'local_tool_result_in', 'result'].map((type) => events.indexOf(type));
    assert.ok(
      order.every((at, index) => at >= 0 && at > (order[index - 1] ?? -1)),
      events.join(' '),
    );
    assert.equal(events.at(-1), 'result');
    assert.match(stream.output(), /"text":"Tool get_weather returned: 18 °C and sunny"/);
    for (const shown of shownFrames()) assert.match(stream.output(), shown);
  });
});
