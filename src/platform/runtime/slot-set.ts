/**
 * A set of short-lived members (requests in flight), held in the slots of an array, for a set
 * that every unit of work joins and leaves. V8's Set is the wrong tool there: its table is
 * rebuilt every few additions once deleted entries fill it, and the table it leaves behind keeps
 * its members and a link to the new one. Once the set has lived long enough to be in the old
 * generation, every left-behind table is too, and young collections treat what it points to as
 * alive until the next full collection: every request then in flight, its response, headers and
 * socket state, was kept and promoted. The API process promoted about 10 KB per list request so
 * (the benchmark's floor: none), and its young collections cost it several times the floor's
 * (docs/benchmarks.md, "The twenty-third session"). A slot is emptied when its member leaves, so
 * nothing here points to a member that has gone.
 */
export class SlotSet<T extends object> implements Iterable<T> {
  private readonly slots: (T | undefined)[] = [];
  private readonly free: number[] = [];

  /** Adds `member`; the answer removes it (once: later calls do nothing). */
  add(member: T): () => void {
    const slot = this.free.pop() ?? this.slots.length;
    this.slots[slot] = member;
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      this.slots[slot] = undefined;
      this.free.push(slot);
    };
  }

  get size(): number {
    // Every slot holds a member but the free ones.
    return this.slots.length - this.free.length;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (const member of this.slots) if (member !== undefined) yield member;
  }
}
