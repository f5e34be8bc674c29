import { getHeapSpaceStatistics } from 'node:v8';
import { SlotSet } from './slot-set.js';

/** Bytes the old generation grew by while `work` ran, summed over samples (a full collection shrinks it between them). */
function oldGenerationGrowth(work: (sample: () => void) => void): number {
  const used = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
  let grown = 0;
  let last = used();
  work(() => {
    const now = used();
    grown += Math.max(0, now - last);
    last = now;
  });
  return grown;
}

/** About 10 KB of young objects, as a request's response and its state are. */
const member = () => ({ state: Array.from({ length: 250 }, (_, index) => ({ index })) });

describe('SlotSet', () => {
  it('holds what was added until its removal, once however often the removal is called', () => {
    const set = new SlotSet<{ name: string }>();
    const a = { name: 'a' };
    const b = { name: 'b' };
    const removeA = set.add(a);
    const removeB = set.add(b);
    expect(set.size).toBe(2);
    expect([...set]).toEqual([a, b]);
    removeA();
    removeA();
    expect(set.size).toBe(1);
    expect([...set]).toEqual([b]);
    // The freed slot is taken again, and the removal of the member that held it before cannot empty it.
    const c = { name: 'c' };
    set.add(c);
    removeA();
    expect(set.size).toBe(2);
    expect(new Set(set)).toEqual(new Set([b, c]));
    removeB();
    expect([...set]).toEqual([c]);
  });

  it('keeps nothing a member left alive: young members it held are not promoted to the old generation', () => {
    const set = new SlotSet<object>();
    // The set itself old, as a server's is after its first minutes: allocation moves it there.
    const removeFirst = set.add(member());
    for (let index = 0; index < 20_000; index += 1) member();
    removeFirst();

    const grown = oldGenerationGrowth((sample) => {
      const inFlight: (() => void)[] = [];
      for (let index = 0; index < 20_000; index += 1) {
        inFlight.push(set.add(member()));
        if (inFlight.length > 10) inFlight.shift()!();
        if (index % 500 === 0) sample();
      }
      for (const remove of inFlight) remove();
      sample();
    });
    // 200 MB passed through the set, ten members at a time. Held in a Set instead, the tables it
    // left behind kept its members through young collections: 77 MB of them were promoted (measured).
    expect(grown).toBeLessThan(20 * 2 ** 20);
  });
});
