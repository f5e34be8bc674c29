import fc from 'fast-check';

/** A fuzz test's seed and runs: its own defaults, or FUZZ_SEED and FUZZ_RUNS to reproduce a failure or to hunt longer. */
export function fuzzSettings(defaults: { seed: number; runs: number }): { seed: number; runs: number } {
  return { seed: Number(process.env.FUZZ_SEED ?? defaults.seed), runs: Number(process.env.FUZZ_RUNS ?? defaults.runs) };
}

/** Text a client should never send: random, binary, empty, NUL, injections, huge. (No lone surrogate: a URL cannot carry one.) */
export const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '', ' ', '0', '-1', '1e309', 'null', 'NaN', '*', '[]', '%', '%00', '\u0000', 'a\u0000b',
    '../../etc/passwd', "' OR 1=1 --", '<script>', '😀', 'ａ', 'x'.repeat(5000),
  ),
);

/**
 * Checks `property` over `runs` values of `arbitrary` from `seed`; answers why it failed, naming
 * `target` and the seed that reproduces it, or undefined. A fuzz test collects these over all its
 * targets, so that one failing target does not hide the others.
 */
export async function fuzzFailure<T>(
  target: string,
  arbitrary: fc.Arbitrary<T>,
  property: (value: T) => Promise<void>,
  { seed, runs }: { seed: number; runs: number },
): Promise<string | undefined> {
  try {
    await fc.assert(fc.asyncProperty(arbitrary, property), { seed, numRuns: runs });
    return undefined;
  } catch (error) {
    return `${target} (FUZZ_SEED=${seed} reproduces it):\n${(error as Error).message}`;
  }
}
