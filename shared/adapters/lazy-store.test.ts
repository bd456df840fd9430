import { describe, expect, it } from 'vitest';
import { lazyStore } from './lazy-store.js';

class Counter {
  count = 0;
  async add(by: number): Promise<number> {
    this.count += by;
    return this.count;
  }
}

describe('lazyStore', () => {
  it('loads the store once, on the first call, and calls its methods with their own this', async () => {
    // Arrange
    let loads = 0;
    const store = lazyStore(async () => {
      loads += 1;
      return new Counter();
    });

    // Act
    const before = loads;
    const results = await Promise.all([store.add(2), store.add(3)]);

    // Assert
    expect(before).toBe(0);
    expect(loads).toBe(1);
    expect(results.sort()).toEqual([2, 5]);
  });

  it('rejects a call of something the store does not have', async () => {
    // Arrange
    const store = lazyStore(async () => new Counter()) as unknown as { missing(): Promise<void> };

    // Act / Assert
    await expect(store.missing()).rejects.toThrow('missing is not a method of this store');
  });
});
