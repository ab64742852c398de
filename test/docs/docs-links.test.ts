import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { describe, it } from 'node:test';
import {
  CLIENT_README,
  documentationFiles,
  headingAnchors,
  lineAt,
  linkTargets,
  readMarkdown,
  REPO,
  repoRelative,
  type MarkdownFile,
} from './markdown.ts';
import { ALLOWED_URL_HOSTS, isAllowedUrl, urlsIn } from './urls.ts';

const anchorsByFile = new Map<string, Set<string>>();
function anchorsOf(path: string): Set<string> {
  let anchors = anchorsByFile.get(path);
  if (!anchors) {
    anchors = headingAnchors(readMarkdown(path));
    anchorsByFile.set(path, anchors);
  }
  return anchors;
}

/** What is wrong with one link of `file`, or undefined when it leads somewhere real. */
function brokenLink(file: MarkdownFile, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    return /^https?:\/\//i.test(target) && isAllowedUrl(target) ? undefined : 'points outside the repository';
  }
  const [pathPart = '', anchor] = target.split('#', 2);
  if (pathPart.startsWith('/')) return 'is absolute: link relative to the file';
  const resolved =
    pathPart === '' ? join(REPO, file.path) : normalize(join(REPO, dirname(file.path), pathPart));
  if (!(resolved + sep).startsWith(REPO) && resolved !== REPO.slice(0, -1)) return 'leaves the repository';
  if (!existsSync(resolved)) return `names ${repoRelative(resolved)}, which does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md'))
    return 'has an anchor into a non-Markdown file';
  const path = repoRelative(resolved);
  return anchorsOf(path).has(decodeURIComponent(anchor)) ? undefined : `names no heading of ${path}`;
}

describe('the docs: links', () => {
  it('every relative link resolves to a file, and every anchor to a heading', () => {
    const broken: string[] = [];
    for (const path of [...documentationFiles(), CLIENT_README]) {
      const file = readMarkdown(path);
      for (const { target, line } of linkTargets(file)) {
        const problem = brokenLink(file, target);
        if (problem) broken.push(`${path}:${line}: (${target}) ${problem}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it(`no URL points outside the repository (allowed hosts: ${[...ALLOWED_URL_HOSTS].join(', ')})`, () => {
    const outside: string[] = [];
    for (const path of documentationFiles()) {
      const { source } = readMarkdown(path);
      for (const { url, offset } of urlsIn(source)) {
        if (!isAllowedUrl(url)) outside.push(`${path}:${lineAt(source, offset)}: ${url}`);
      }
    }
    assert.deepEqual(outside, []);
  });

  it('the spec copies hold the anchors the docs link to', () => {
    // A guard on the checker itself: GitHub's slug of a heading with punctuation and code.
    assert.ok(anchorsOf('docs/spec/agent-runs-interface.md').has('outputschema-structured-final-reply'));
    assert.ok(anchorsOf('docs/operations.md').has('faults-what-the-service-guarantees'));
  });
});
