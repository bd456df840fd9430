/**
 * A set of strings kept as UTF-8 bytes in one buffer, for a check that must remember every URN of a large state
 * while it reads it. A `Set<string>` of 40,000 URNs is that many strings on the JS heap: they outlive every young
 * collection, so the heap grows its young generation and keeps it grown after the check. Here the bytes live outside
 * the heap, in a buffer that doubles as it fills, found through an open-addressing table of entry numbers.
 *
 * Exact, not probabilistic: a lookup compares the bytes. Strings without surrogates encode to UTF-8 one to one; the
 * rare string that holds one (a lone surrogate would encode to the same bytes as another) is kept in a plain `Set`.
 */
export class CompactStringSet {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  /** Entry `n` is `bytes[starts[n], starts[n + 1])`. */
  private starts = new Int32Array(1024);
  private count = 0;
  /** Entry number + 1 per slot, 0 for an empty slot; its length is a power of two, at most half full. */
  private slots = new Int32Array(2048);
  private readonly withSurrogates = new Set<string>();

  has(value: string): boolean {
    if (SURROGATE.test(value)) return this.withSurrogates.has(value);
    const end = this.stage(value);
    return this.slots[this.find(this.used, end)] !== 0;
  }

  add(value: string): void {
    if (SURROGATE.test(value)) {
      this.withSurrogates.add(value);
      return;
    }
    const end = this.stage(value);
    const slot = this.find(this.used, end);
    if (this.slots[slot] !== 0) return;
    if (this.count + 2 > this.starts.length) this.starts = grown(this.starts, this.starts.length * 2);
    this.starts[this.count] = this.used;
    this.count += 1;
    this.starts[this.count] = end;
    this.slots[slot] = this.count;
    this.used = end;
    if (this.count * 2 > this.slots.length) this.rehash();
  }

  /** Writes `value` right after the stored entries (not yet one of them); returns where it ends. */
  private stage(value: string): number {
    // At most 3 bytes per UTF-16 code unit without surrogates.
    const room = this.used + value.length * 3;
    if (room > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(room, this.bytes.length * 2));
      this.bytes.copy(bigger, 0, 0, this.used);
      this.bytes = bigger;
    }
    return this.used + this.bytes.write(value, this.used, 'utf8');
  }

  /** The slot holding the entry equal to `bytes[start, end)`, or the empty slot where it would go. */
  private find(start: number, end: number): number {
    const mask = this.slots.length - 1;
    let slot = hash(this.bytes, start, end) & mask;
    for (;;) {
      const entry = this.slots[slot]!;
      if (entry === 0) return slot;
      const from = this.starts[entry - 1]!;
      const to = this.starts[entry]!;
      if (to - from === end - start && this.bytes.compare(this.bytes, start, end, from, to) === 0) return slot;
      slot = (slot + 1) & mask;
    }
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    const mask = this.slots.length - 1;
    for (let entry = 1; entry <= this.count; entry++) {
      let slot = hash(this.bytes, this.starts[entry - 1]!, this.starts[entry]!) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = entry;
    }
  }
}

const SURROGATE = /[\uD800-\uDFFF]/;

function grown(array: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(length);
  bigger.set(array);
  return bigger;
}

/** FNV-1a over `bytes[start, end)`. */
function hash(bytes: Buffer, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}
