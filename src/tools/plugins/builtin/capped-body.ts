import { TextDecoder } from 'node:util';

/** A response body read up to a byte cap, decoded with the charset its content type names. */
export interface CappedBody {
  text: string;
  /** The body went on past the cap; the rest was not read. */
  truncated: boolean;
}

export async function readCappedBody(response: Response, maxBytes: number): Promise<CappedBody> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - size));
        truncated = true;
        await reader.cancel();
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  }
  return { text: decoderFor(response.headers.get('content-type')).decode(Buffer.concat(chunks)), truncated };
}

function decoderFor(contentType: string | null): TextDecoder {
  const charset = /;\s*charset="?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8');
  } catch {
    // An unknown label: UTF-8 reads most of the web.
    return new TextDecoder('utf-8');
  }
}
