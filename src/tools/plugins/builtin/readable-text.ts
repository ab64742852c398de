import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

/** linkedom's nodes, as far as the text walk reads them (its DOM types are not in our lib). */
interface TextNode {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  childNodes: ArrayLike<TextNode>;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const DOCUMENT_NODE = 9;
const FRAGMENT_NODE = 11;
const CONTAINERS = new Set([ELEMENT_NODE, DOCUMENT_NODE, FRAGMENT_NODE]);
const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'HEAD', 'TITLE']);
const PARAGRAPHS = new Set([
  ...'P H1 H2 H3 H4 H5 H6 BLOCKQUOTE PRE TABLE UL OL DL'.split(' '),
  ...'FIGURE SECTION ARTICLE HEADER FOOTER ASIDE NAV MAIN HR'.split(' '),
]);
const LINES = new Set(['BR', 'DIV', 'LI', 'TR', 'DT', 'DD', 'FIGCAPTION', 'ADDRESS']);
const CELLS = new Set(['TD', 'TH']);

/**
 * The readable text of an HTML page: Readability's article (title and text) when it finds one,
 * else the body's text. Block elements become line breaks so paragraphs stay apart.
 */
export function readableText(html: string): { title: string; text: string } {
  const page = withBody(html);
  const { document } = parseHTML(page);
  const pageTitle = collapseLine(document.querySelector('title')?.textContent ?? '');
  const article = new Readability(document, { serializer: (node: unknown) => node as TextNode }).parse();
  const articleText = article?.content ? blockText(article.content) : '';
  if (articleText !== '') {
    return { title: collapseLine(article?.title ?? '') || pageTitle, text: articleText };
  }
  // Readability rewrites the document it reads: the fallback reads a fresh parse.
  const body = parseHTML(page).document.body as unknown as TextNode | null;
  return { title: pageTitle, text: body ? blockText(body) : '' };
}

/** linkedom is no spec parser: without a body tag it drops the content, so give the page one. */
function withBody(html: string): string {
  if (/<body[\s>]/i.test(html)) return html;
  const opening = /<\/head\s*>/i.exec(html) ?? /<html[^>]*>/i.exec(html);
  if (!opening) return `<html><body>${html}</body></html>`;
  const at = opening.index + opening[0].length;
  return `${html.slice(0, at)}<body>${html.slice(at)}`;
}

/**
 * Text with block boundaries as line breaks: a boundary asks for one newline (a line) or two (a
 * paragraph), and adjacent boundaries merge into the largest so nested blocks add no blank lines.
 */
function blockText(root: TextNode): string {
  const out: string[] = [];
  let pendingBreak = '';
  const visit = (node: TextNode): void => {
    if (node.nodeType === TEXT_NODE) {
      const text = (node.nodeValue ?? '').replace(/\s+/g, ' ');
      if (pendingBreak !== '' && text.trim() === '') return;
      if (out.length > 0) out.push(pendingBreak);
      pendingBreak = '';
      out.push(text);
      return;
    }
    if (!CONTAINERS.has(node.nodeType)) return;
    const name = node.nodeName.toUpperCase();
    if (SKIPPED.has(name)) return;
    const boundary = PARAGRAPHS.has(name) ? '\n\n' : LINES.has(name) ? '\n' : CELLS.has(name) ? ' ' : '';
    if (boundary.length > pendingBreak.length) pendingBreak = boundary;
    for (let index = 0; index < node.childNodes.length; index++) visit(node.childNodes[index] as TextNode);
    if (boundary.length > pendingBreak.length) pendingBreak = boundary;
  };
  visit(root);
  return out
    .join('')
    .split('\n')
    .map((line) => line.replace(/ {2,}/g, ' ').trim())
    .join('\n')
    .trim();
}

function collapseLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
