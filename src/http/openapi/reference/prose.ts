import { escapeHtml, SafeHtml } from '../../pages/html.ts';

/** A line of the document's descriptions as HTML: escaped, with `code` spans. */
export function inline(text: string): SafeHtml {
  return new SafeHtml(escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>'));
}

/**
 * A description as HTML: paragraphs split at blank lines, runs of `- ` lines as lists. That is all
 * the markdown the document's descriptions use.
 */
export function prose(text: string | undefined): SafeHtml {
  if (!text) return new SafeHtml('');
  const blocks = text.split(/\n\s*\n/).map((block) => {
    const lines = block.split('\n');
    if (lines.every((line) => line.startsWith('- '))) {
      return `<ul>${lines.map((line) => `<li>${inline(line.slice(2)).value}</li>`).join('')}</ul>`;
    }
    return `<p>${inline(block).value}</p>`;
  });
  return new SafeHtml(blocks.join(''));
}
