import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** A fenced code block: its info string's language and its text. */
export interface CodeBlock {
  language: string;
  text: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** A Markdown file split into its fenced blocks and its prose (fenced lines blanked, line numbers kept). */
export interface MarkdownFile {
  /** Path relative to the repository root, with `/`. */
  path: string;
  source: string;
  prose: string;
  blocks: CodeBlock[];
}

/** The Markdown files a reader meets: the README, CONTRIBUTING and docs/ (the spec copies included). */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(REPO, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name.split('\\').join('/')}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()];
}

/** The client package's README: its links are checked too; its code is run by test/client/. */
export const CLIENT_README = 'packages/client/README.md';

export function readMarkdown(path: string): MarkdownFile {
  const source = readFileSync(join(REPO, path), 'utf8');
  const lines = source.split('\n');
  const blocks: CodeBlock[] = [];
  const prose: string[] = [];
  let open: { fence: string; language: string; line: number; body: string[] } | undefined;
  for (const [index, line] of lines.entries()) {
    if (open) {
      if (line.trimStart().startsWith(open.fence) && line.trim() === line.trim().replace(/[^`~]/g, '')) {
        blocks.push({ language: open.language, text: open.body.join('\n'), line: open.line });
        open = undefined;
      } else {
        open.body.push(line);
      }
      prose.push('');
      continue;
    }
    const fence = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (fence?.[1] !== undefined) {
      open = { fence: fence[1], language: fence[2] ?? '', line: index + 1, body: [] };
      prose.push('');
      continue;
    }
    prose.push(line);
  }
  if (open) throw new Error(`${path}:${open.line}: a code block is never closed`);
  return { path, source, prose: prose.join('\n'), blocks };
}

/** 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** The prose with inline code spans blanked (same length), so that their text is neither link nor heading markup. */
export function withoutCodeSpans(prose: string): string {
  return prose.replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' '));
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to `-`, repeats numbered. */
export function headingAnchors(file: MarkdownFile): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of file.prose.split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] === undefined) continue;
    const base = githubSlug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

export function githubSlug(headingText: string): string {
  return headingText
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every inline link and image target of the prose, with its line. */
export function linkTargets(file: MarkdownFile): Array<{ target: string; line: number }> {
  const prose = withoutCodeSpans(file.prose);
  const targets: Array<{ target: string; line: number }> = [];
  for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (match[1] !== undefined) targets.push({ target: match[1], line: lineAt(prose, match.index) });
  }
  return targets;
}

export function repoRelative(absolute: string): string {
  return relative(REPO, absolute).split('\\').join('/');
}
