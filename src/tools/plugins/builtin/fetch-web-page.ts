import type { PluginContext, ToolPlugin, ToolPluginModule } from '../tool-plugin.ts';
import { readCappedBody } from './capped-body.ts';

const DEFAULT_MAX_CHARS = 20_000;
const MAX_CHARS = 100_000;
const MAX_BODY_BYTES = 5 * 1024 * 1024;
const TIMEOUT_MS = 20_000;

export const fetchWebPagePlugin: ToolPlugin = {
  name: 'fetch_web_page',
  description:
    'Fetches a public web page (http or https) and returns its readable text: an HTML page as its title and article text, plain text as is, JSON pretty-printed.',
  parameters: {
    type: 'object',
    properties: {
      url: {
        type: 'string',
        pattern: '^[hH][tT][tT][pP][sS]?://',
        maxLength: 4096,
        description: 'The page URL.',
      },
      maxChars: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_CHARS,
        default: DEFAULT_MAX_CHARS,
        description: 'Longest text to return; a longer page is cut with a note.',
      },
    },
    required: ['url'],
    additionalProperties: false,
  },
  readOnly: true,
  async execute(args, context) {
    const url = httpUrl(String(args.url));
    const maxChars = typeof args.maxChars === 'number' ? args.maxChars : DEFAULT_MAX_CHARS;
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    try {
      return limited(await fetchPage(url, context, AbortSignal.any([context.signal, timeout])), maxChars);
    } catch (error) {
      if (timeout.aborted && !context.signal.aborted) {
        throw new Error(`fetching ${url.href} took longer than ${TIMEOUT_MS / 1000} s`, { cause: error });
      }
      throw error;
    }
  },
};

export const fetchWebPageModule: ToolPluginModule = { name: 'fetch_web_page', plugins: [fetchWebPagePlugin] };

function httpUrl(text: string): URL {
  const url = URL.parse(text);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(`'${text}' is not an http or https URL`);
  }
  return url;
}

/** A page's text, and whether its body was cut at {@link MAX_BODY_BYTES}. */
interface PageText {
  text: string;
  cut: boolean;
}

async function fetchPage(url: URL, context: PluginContext, signal: AbortSignal): Promise<PageText> {
  let response: Response;
  try {
    response = await context.fetch(url, {
      signal,
      redirect: 'follow',
      headers: { accept: 'text/html, application/xhtml+xml, text/*;q=0.9, application/json;q=0.8' },
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new Error(`could not fetch ${url.href}: ${describe(error)}`, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(
      `${url.href} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
    );
  }
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const kind = bodyKind(mediaType);
  if (kind === undefined) {
    await response.body?.cancel();
    throw new Error(
      `${url.href} is '${mediaType || 'without a content type'}': fetch_web_page reads only HTML, text/* and JSON`,
    );
  }
  const body = await readCappedBody(response, MAX_BODY_BYTES);
  return { text: await pageText(kind, body.text), cut: body.truncated };
}

type BodyKind = 'html' | 'json' | 'text';

function bodyKind(mediaType: string): BodyKind | undefined {
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') return 'html';
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) return 'json';
  if (mediaType.startsWith('text/')) return 'text';
  return undefined;
}

async function pageText(kind: BodyKind, body: string): Promise<string> {
  switch (kind) {
    case 'html': {
      // Readability and its DOM load with the first page fetched, not with the service.
      const { readableText } = await import('./readable-text.ts');
      const { title, text } = readableText(body);
      const readable = text || '[the page has no readable text]';
      return title ? `${title}\n\n${readable}` : readable;
    }
    case 'json':
      try {
        return JSON.stringify(JSON.parse(body), null, 2);
      } catch {
        return body;
      }
    case 'text':
      return body;
  }
}

function limited(page: PageText, maxChars: number): string {
  const parts = [page.text.slice(0, maxChars)];
  if (page.text.length > maxChars) {
    parts.push(`[truncated: the first ${maxChars} of ${page.text.length} characters]`);
  }
  if (page.cut) parts.push('[the page is larger than 5 MB: only its first 5 MB were read]');
  return parts.join('\n\n');
}

/** undici's `fetch failed` hides the reason in its cause (refused connection, DNS, the SSRF guard). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  return cause && cause !== message ? `${message}: ${cause}` : message;
}
