const ATTACHABLE = new Set([
  'audio/mp4',
  'audio/mpeg',
  'audio/wav',
  'audio/webm',
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/csv',
  'application/json',
  'application/xml',
]);

/** Whether the service takes a file of this MIME type in a tool result (parameters ignored; any `text/*`). */
export function isAttachableMimeType(mimeType: string): boolean {
  const base = (mimeType.split(';')[0] ?? '').trim().toLowerCase();
  return base.startsWith('text/') ? base.length > 'text/'.length : ATTACHABLE.has(base);
}
