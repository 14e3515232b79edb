import { describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';

describe('time-sortable ids', () => {
  it('sort in creation order, also when many are made in the same millisecond', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => newId('dlv', 1_700_000_000_000 + Math.floor(i / 100)));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toMatch(/^dlv_[0-9a-f]{28}$/);
  });

  it('sort by time first', () => {
    const later = newId('evt', 2_000_000_000_000);
    const earlier = newId('evt', 1_000_000_000_000);
    expect([later, earlier].sort()).toEqual([earlier, later]);
  });
});
