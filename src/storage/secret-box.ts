import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

import type { SecretOpener, SecretSealer } from '../engine/ports.ts';

const VERSION = 'v1';

/**
 * Encrypts secrets at rest (provider API keys) with AES-256-GCM under a key
 * derived from AGENT_RUNS_SECRET. Ciphertexts are `v1.<iv>.<tag>.<data>` in base64url.
 */
export class SecretBox implements SecretSealer, SecretOpener {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'agent-runs', 'provider-keys', 32));
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), data]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  readonly #opened = new Map<string, string>();

  /** Decrypts (memoized: provider keys are opened on every run, and AES-GCM per run showed in profiles). */
  open(sealed: string): string {
    const cached = this.#opened.get(sealed);
    if (cached !== undefined) return cached;
    const plaintext = this.#decrypt(sealed);
    if (this.#opened.size >= 1024) this.#opened.clear();
    this.#opened.set(sealed, plaintext);
    return plaintext;
  }

  #decrypt(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || data === undefined)
      throw new Error('unrecognized sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
