import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** What a handoff carries to the browser tab. */
export interface HandoffContents {
  accessToken: string;
  workspaceSlug: string;
}

/**
 * Seals a handoff's contents under a key derived from the handoff id itself (AES-256-GCM): the id is
 * stored only as its hash, so a stored row cannot be opened without the id the browser tab holds.
 */
export function sealHandoff(handoffId: string, contents: HandoffContents): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(handoffId), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(contents), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url')).join('.');
}

/** The contents, or undefined when the id does not open the seal. */
export function openHandoff(handoffId: string, sealed: string): HandoffContents | undefined {
  const [iv, tag, data] = sealed.split('.');
  if (iv === undefined || tag === undefined || data === undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(handoffId), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
    const parsed = JSON.parse(plain.toString('utf8')) as Partial<HandoffContents>;
    if (typeof parsed.accessToken !== 'string' || typeof parsed.workspaceSlug !== 'string') return undefined;
    return { accessToken: parsed.accessToken, workspaceSlug: parsed.workspaceSlug };
  } catch {
    return undefined;
  }
}

function keyOf(handoffId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', handoffId, '', 'agent-runs console handoff', 32));
}
