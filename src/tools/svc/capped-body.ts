/** A response body read up to a limit: `truncated` when it had more, which was then left unread. */
export interface CappedBody {
  bytes: Uint8Array;
  truncated: boolean;
}

/**
 * Reads at most `limit` bytes of a body, chunk by chunk, and cancels the rest
 * as soon as the limit is passed, which closes the connection: an endpoint
 * that streams forever costs no more than `limit` bytes of memory.
 */
export async function readCapped(response: Response, limit: number): Promise<CappedBody> {
  const body = response.body;
  if (body === null) return { bytes: new Uint8Array(0), truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: concat(chunks, size), truncated: false };
    const room = limit - size;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      await reader.cancel();
      return { bytes: concat(chunks, limit), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
