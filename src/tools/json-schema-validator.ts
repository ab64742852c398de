import { createHash } from 'node:crypto';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { SchemaValidator, SchemaViolation, ValidationOutcome } from '../engine/ports.ts';
import { linearRegExp } from './linear-regexp.ts';

const CACHE_LIMIT = 512;

/**
 * Validates values against user-supplied JSON Schemas (draft 2020-12, with
 * formats; patterns run on a linear-time engine). Compiled validators are
 * cached by schema text, so a tool schema repeated across runs is compiled
 * once. A schema Ajv cannot compile accepts every value: its content is the
 * client's, and the provider still sees it.
 */
export class JsonSchemaValidator implements SchemaValidator {
  readonly #ajv: Ajv2020;
  readonly #cache = new Map<string, ValidateFunction | null>();

  constructor() {
    this.#ajv = new Ajv2020({
      allErrors: true,
      strict: false,
      validateFormats: true,
      code: { regExp: linearRegExp },
    });
    addFormats.default(this.#ajv);
  }

  validate(schema: Record<string, unknown>, value: unknown): ValidationOutcome {
    const validate = this.#compiled(schema);
    if (!validate || validate(value)) return { valid: true };
    return { valid: false, violations: (validate.errors ?? []).slice(0, 20).map(toViolation) };
  }

  #compiled(schema: Record<string, unknown>): ValidateFunction | null {
    const key = createHash('sha1').update(JSON.stringify(schema)).digest('base64');
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    let compiled: ValidateFunction | null;
    try {
      compiled = this.#ajv.compile(schema);
    } catch {
      compiled = null;
    }
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(key, compiled);
    return compiled;
  }
}

function toViolation(error: ErrorObject): SchemaViolation {
  return { path: error.instancePath || '/', message: error.message ?? 'is invalid' };
}
