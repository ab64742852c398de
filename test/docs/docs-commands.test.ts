import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { commandProblem, gatherFacts, type CommandFacts } from './command-checks.ts';
import { documentationFiles, readMarkdown, withoutCodeSpans } from './markdown.ts';
import { shellCommands } from './shell-commands.ts';

/**
 * Code spans of the prose that are whole commands: `npm run build -w …`, `npx agent-runs migrate`,
 * `agent-runs dev`, `node bench/session-list.ts`. Spans with usage notation (`[--flag]`, `…`) or
 * naming a command without arguments (`npm run`, `npx agent-runs`) are references, not commands.
 * Decision records are history: the commands they cite may be gone.
 */
function inlineCommands(prose: string): string[] {
  return [...prose.matchAll(/(`+)([\s\S]*?)\1/g)]
    .map((match) => (match[2] ?? '').replace(/\s+/g, ' ').trim())
    .filter((code) => /^(npm (run|test|start|install|ci)|npx|node|agent-runs)( |$)/.test(code))
    .filter((code) => !/[…[]/.test(code) && !/^(npm run|npx agent-runs|npx|node|agent-runs)$/.test(code));
}

const SHELL = new Set(['sh', 'bash', 'shell']);
/** Block languages that hold no command to run: code read by the reader, outputs, diagrams. */
const NOT_COMMANDS = new Set(['ts', 'js', 'json', 'yaml', 'text']);

describe('the docs: commands', () => {
  let facts: CommandFacts;
  before(async () => {
    facts = await gatherFacts();
  });

  it('every command of a shell block is one the code accepts', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const path of documentationFiles()) {
      // One shell per file: a variable one block sets is there in the next.
      const variables = new Map<string, string>();
      for (const block of readMarkdown(path).blocks) {
        if (!SHELL.has(block.language)) continue;
        for (const command of shellCommands(block.text, variables)) {
          checked++;
          const problem = commandProblem(command, facts);
          if (problem) problems.push(`${path}:${block.line + command.line}: ${command.source}\n  ${problem}`);
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(checked > 20, `only ${checked} commands found: is the block parser broken?`);
  });

  it('every command written inline in the prose is one the code accepts', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const path of documentationFiles().filter((file) => !/^docs\/(decisions|spec)\//.test(file))) {
      for (const span of inlineCommands(readMarkdown(path).prose)) {
        for (const command of shellCommands(span)) {
          checked++;
          const problem = commandProblem(command, facts);
          if (problem) problems.push(`${path}: \`${span}\`\n  ${problem}`);
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(checked > 20, `only ${checked} inline commands found`);
  });

  it('every code block says its language, and only shell blocks hold commands', () => {
    const unlabelled: string[] = [];
    for (const path of documentationFiles()) {
      for (const block of readMarkdown(path).blocks) {
        if (!SHELL.has(block.language) && !NOT_COMMANDS.has(block.language)) {
          unlabelled.push(`${path}:${block.line}: \`\`\`${block.language}`);
        }
      }
    }
    assert.deepEqual(unlabelled, []);
  });

  it('every AGENT_RUNS_ variable the docs name is read by the service or the test support', () => {
    const unknown: string[] = [];
    // The spec also names the variables of extensions not built yet.
    for (const path of documentationFiles().filter((file) => !file.startsWith('docs/spec/'))) {
      const { source } = readMarkdown(path);
      for (const match of source.matchAll(/\bAGENT_RUNS_[A-Z0-9_]*[A-Z0-9]\b/g)) {
        if (!facts.knownVariables.has(match[0])) unknown.push(`${path}: ${match[0]}`);
      }
    }
    assert.deepEqual([...new Set(unknown)], []);
  });

  it('the configuration table lists exactly the variables of src/config.ts', () => {
    const { prose } = readMarkdown('docs/configuration.md');
    const table = prose.slice(prose.indexOf('| variable'));
    const rows = table.slice(0, table.indexOf('\n\n'));
    const listed = new Set(
      [...rows.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1] ?? '').filter((name) => name !== ''),
    );
    assert.deepEqual([...listed].sort(), [...facts.configVariables].sort());
    // Keeps the table honest as prose too: no variable hides in a code span of another row.
    assert.ok(withoutCodeSpans(rows).length === rows.length);
  });
});
