import { readCapped } from '../svc/capped-body.ts';

/** Caps what is read of one answer of a peer, so a peer streaming forever costs bounded memory. */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** The parsed JSON body of an answer, or undefined when it is not JSON; a body above the cap rejects. */
export async function readJsonBody(response: Response): Promise<unknown> {
  const { bytes, truncated } = await readCapped(response, MAX_ANSWER_BYTES);
  if (truncated) throw new Error(`the answer of ${response.url} exceeds ${MAX_ANSWER_BYTES} bytes`);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
