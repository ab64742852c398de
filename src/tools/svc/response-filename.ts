const EXTENSIONS: Readonly<Record<string, string>> = {
  'application/octet-stream': 'bin',
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'application/gzip': 'gz',
  'image/jpeg': 'jpg',
  'image/svg+xml': 'svg',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
};

/**
 * The name of a file an HTTP tool returned as its whole body: the
 * `content-disposition` filename (its RFC 5987 `filename*` first), reduced to
 * a base name, else `<toolname>.<ext>` from the media type.
 */
export function responseFilename(
  contentDisposition: string | null,
  toolName: string,
  mimeType: string,
): string {
  const named = contentDisposition === null ? undefined : dispositionFilename(contentDisposition);
  const base = named?.split(/[/\\]/).pop()?.trim();
  if (base !== undefined && base !== '' && base !== '.' && base !== '..') return base;
  return `${toolName}.${extension(mimeType)}`;
}

function dispositionFilename(header: string): string | undefined {
  const extended = /filename\*\s*=\s*[^']*'[^']*'([^;]+)/i.exec(header);
  if (extended?.[1] !== undefined) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // A malformed percent-encoding: fall back to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  return plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2];
}

function extension(mimeType: string): string {
  const known = EXTENSIONS[mimeType];
  if (known !== undefined) return known;
  const subtype = mimeType.split('/')[1] ?? '';
  return /^[a-z0-9]{1,8}$/.test(subtype) ? subtype : 'bin';
}
