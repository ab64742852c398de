import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ID_PREFIX, isWellFormedId, newId, type IdKind } from '../../src/domain/ids.ts';

describe('identifiers', () => {
  it('every kind: the prefix, then a lowercase ULID; well formed for its kind only', () => {
    for (const kind of Object.keys(ID_PREFIX) as IdKind[]) {
      const id = newId(kind);
      assert.match(id, new RegExp(`^${ID_PREFIX[kind]}_[0-9a-hjkmnp-tv-z]{26}$`));
      assert.ok(isWellFormedId(kind, id));
    }
    assert.equal(isWellFormedId('session', newId('run')), false);
  });

  it('ids drawn past the random pool (many thousands) stay distinct and use the whole alphabet', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('run'));
    assert.equal(new Set(ids).size, ids.length);
    const randomPart = new Set(ids.flatMap((id) => [...id.slice(-16)]));
    assert.equal(randomPart.size, 32, 'all 32 Crockford characters appear in the random part');
  });
});
