/** How a response body is read: parsed as JSON, passed on as text, or kept as a file. */
export type BodyKind = 'json' | 'text' | 'binary' | 'unlabelled';

const TEXT_TYPES = new Set([
  'application/xml',
  'application/javascript',
  'application/yaml',
  'application/x-yaml',
  'application/x-ndjson',
  'application/x-www-form-urlencoded',
]);

/** The media type without parameters, lowercased; '' when the header is absent. */
export function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function bodyKind(mimeType: string): BodyKind {
  if (mimeType === '') return 'unlabelled';
  if (mimeType === 'application/json' || mimeType.endsWith('+json')) return 'json';
  if (mimeType.startsWith('text/') || mimeType.endsWith('+xml') || TEXT_TYPES.has(mimeType)) return 'text';
  return 'binary';
}

/**
 * Text in the header's charset (UTF-8 by default or when unknown). A `partial`
 * body was cut at an arbitrary byte: an incomplete last character is dropped.
 */
export function decodeText(bytes: Uint8Array, contentType: string | null, partial = false): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  return decoderFor(charset).decode(bytes, { stream: partial });
}

function decoderFor(charset: string | undefined) {
  try {
    return new TextDecoder(charset ?? 'utf-8');
  } catch {
    return new TextDecoder();
  }
}

/** The text of a body that is valid UTF-8, else undefined (it is binary). */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
