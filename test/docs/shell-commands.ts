/** One simple command of a shell block, as `sh` would split it. */
export interface ShellCommand {
  /** Its source text (without the `&`, `;`, `&&`, `||` or `|` that ends it), for running it with bash. */
  source: string;
  /** Its words, quotes removed and `$NAME` expanded from the assignments before it (unknown names kept). */
  words: string[];
  /** Ended by a single `&`. */
  background: boolean;
  /** 1-based line of the block where it starts. */
  line: number;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/;

/** The leading `NAME=value` words of a command, and the words after them. */
export function splitAssignments(words: readonly string[]): {
  assignments: Array<{ name: string; value: string }>;
  rest: string[];
} {
  const assignments: Array<{ name: string; value: string }> = [];
  let index = words[0] === 'export' ? 1 : 0;
  for (; index < words.length; index++) {
    const match = ASSIGNMENT.exec(words[index] ?? '');
    if (!match?.[1]) break;
    assignments.push({ name: match[1], value: match[2] ?? '' });
  }
  return { assignments, rest: words.slice(index) };
}

/**
 * Splits a shell block into simple commands: quotes, backslash escapes and line continuations,
 * comments, `$NAME`/`${NAME}` (expanded from the block's own earlier assignments), `$(…)` kept
 * as written, and the separators `;`, `&&`, `||`, `|` and `&`. Enough for documentation, not a shell.
 */
export function shellCommands(block: string, variables = new Map<string, string>()): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let words: string[] = [];
  let word: string | undefined;
  let start = 0;
  let index = 0;
  const expand = (name: string) => variables.get(name) ?? `$${name}`;
  const endWord = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const endCommand = (end: number, background: boolean) => {
    endWord();
    if (words.length > 0) {
      const { assignments, rest } = splitAssignments(words);
      if (rest.length === 0) for (const { name, value } of assignments) variables.set(name, value);
      commands.push({
        source: block.slice(start, end).trim(),
        words,
        background,
        line: block.slice(0, start).split('\n').length + (/^\s*\n/.test(block.slice(start)) ? 1 : 0),
      });
    }
    words = [];
  };
  const variableAt = (at: number): { name: string; length: number } | undefined => {
    const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(block.slice(at));
    if (braced?.[1]) return { name: braced[1], length: braced[0].length };
    const plain = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(block.slice(at));
    return plain?.[1] ? { name: plain[1], length: plain[0].length } : undefined;
  };
  while (index < block.length) {
    const char = block[index] ?? '';
    const next = block[index + 1];
    if (char === '\\') {
      if (next === '\n') index += 2;
      else {
        word = (word ?? '') + (next ?? '');
        index += 2;
      }
    } else if (char === "'") {
      const close = block.indexOf("'", index + 1);
      if (close < 0) throw new Error(`unclosed ' in: ${block.slice(start, start + 80)}`);
      word = (word ?? '') + block.slice(index + 1, close);
      index = close + 1;
    } else if (char === '"') {
      let text = '';
      index++;
      while (index < block.length && block[index] !== '"') {
        const inner = block[index] ?? '';
        const variable = inner === '$' ? variableAt(index) : undefined;
        if (inner === '\\' && /["\\$`]/.test(block[index + 1] ?? '')) {
          text += block[index + 1];
          index += 2;
        } else if (variable) {
          text += expand(variable.name);
          index += variable.length;
        } else {
          text += inner;
          index++;
        }
      }
      if (index >= block.length) throw new Error(`unclosed " in: ${block.slice(start, start + 80)}`);
      word = (word ?? '') + text;
      index++;
    } else if (char === '$' && next === '(') {
      let depth = 0;
      let end = index + 1;
      for (; end < block.length; end++) {
        if (block[end] === '(') depth++;
        if (block[end] === ')' && --depth === 0) break;
      }
      word = (word ?? '') + block.slice(index, end + 1);
      index = end + 1;
    } else if (char === '$' && variableAt(index)) {
      const variable = variableAt(index);
      word = (word ?? '') + expand(variable?.name ?? '');
      index += variable?.length ?? 1;
    } else if (char === '#' && word === undefined) {
      while (index < block.length && block[index] !== '\n') index++;
    } else if (char === ' ' || char === '\t') {
      endWord();
      index++;
    } else if (char === '\n' || char === ';') {
      endCommand(index, false);
      start = ++index;
    } else if ((char === '&' || char === '|') && next === char) {
      endCommand(index, false);
      index += 2;
      start = index;
    } else if (char === '|' || char === '&') {
      endCommand(index, char === '&');
      start = ++index;
    } else {
      word = (word ?? '') + char;
      index++;
    }
  }
  endCommand(block.length, false);
  return commands;
}
