/** The spec's count and size limits of a `metadata` map (keys and values are checked at the edge). */
export const METADATA_ENTRIES_MAX = 16;
export const METADATA_BYTES_MAX = 4 * 1024;

/**
 * What breaks the count or size limit of a metadata map (empty when it fits). Also applied
 * to a session's metadata merged with a message's, which each fit on their own.
 */
export function metadataLimitViolations(metadata: Record<string, string>): string[] {
  const violations: string[] = [];
  const entries = Object.keys(metadata).length;
  if (entries > METADATA_ENTRIES_MAX)
    violations.push(`must have at most ${METADATA_ENTRIES_MAX} entries (got ${entries})`);
  const bytes = Buffer.byteLength(JSON.stringify(metadata), 'utf8');
  if (bytes > METADATA_BYTES_MAX) {
    const format = (value: number) => value.toLocaleString('en-US');
    violations.push(
      `serialized size must be at most 4 KB (${format(METADATA_BYTES_MAX)} bytes; got ${format(bytes)})`,
    );
  }
  // Metadata is stored as rows for the list filters, and PostgreSQL's text cannot hold U+0000.
  for (const [key, value] of Object.entries(metadata)) {
    if (value.includes('\u0000')) violations.push(`${key}: must not contain the NUL character (U+0000)`);
  }
  return violations;
}
