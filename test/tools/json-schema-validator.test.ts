import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonSchemaValidator } from '../../src/tools/json-schema-validator.ts';

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

describe('validating values against user-supplied JSON Schemas', () => {
  const validator = new JsonSchemaValidator();

  it('pattern and patternProperties are enforced, Unicode classes included', () => {
    const schema = {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' }, name: { pattern: '^\\p{L}+$' } },
      patternProperties: { '^x-': { type: 'number' } },
    };
    assert.deepEqual(validator.validate(schema, { code: 'ABC-12', name: 'Zoë', 'x-a': 1 }), { valid: true });
    const outcome = validator.validate(schema, { code: 'abc', name: 'Zoë1', 'x-a': 'one' });
    assert.equal(outcome.valid, false);
    assert.deepEqual(!outcome.valid && outcome.violations.map((violation) => violation.path).sort(), [
      '/code',
      '/name',
      '/x-a',
    ]);
  });

  it('a catastrophic-backtracking pattern runs in linear time (it would take hours on a backtracking engine)', () => {
    const schema = { type: 'string', pattern: '^(a+)+$' };
    // A backtracking engine needs over 10 s for these 29 characters (and twice that per extra 'a').
    // Measured in CPU time, which other processes on a loaded machine do not stretch.
    let started = process.cpuUsage();
    assert.equal(validator.validate(schema, `${'a'.repeat(28)}b`).valid, false);
    assert.ok(cpuMsSince(started) < 3000, `${cpuMsSince(started)} ms of CPU`);
    started = process.cpuUsage();
    assert.equal(validator.validate(schema, `${'a'.repeat(100_000)}b`).valid, false);
    assert.equal(validator.validate(schema, 'a'.repeat(100_000)).valid, true);
    assert.ok(cpuMsSince(started) < 3000, `${cpuMsSince(started)} ms of CPU`);
  });

  it('a pattern the linear engine cannot run (lookahead) leaves that schema unenforced, as any schema that does not compile', () => {
    assert.deepEqual(validator.validate({ type: 'string', pattern: '^(?=a)a$' }, 'b'), { valid: true });
  });
});
