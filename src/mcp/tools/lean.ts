/**
 * A copy without null members (in nested objects and arrays too): a model's context is small,
 * and an absent member reads the same as a null one.
 */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, member]) => member !== null)
        .map(([name, member]) => [name, withoutNulls(member)]),
    ) as T;
  }
  return value;
}

/** How many of `items`, from the first, fit into `budget` bytes of JSON (at least one). */
export function countWithinBudget(items: readonly unknown[], budget: number): number {
  let used = 0;
  for (let index = 0; index < items.length; index += 1) {
    used += Buffer.byteLength(JSON.stringify(items[index])) + 1;
    if (used > budget) return Math.max(1, index);
  }
  return items.length;
}

/**
 * A list item as a model needs it: no null members or empty arrays, and each array of records
 * inside it (an invoice's lines) replaced by its count (`line_count`), unless `fields` names it.
 * With `fields`, only `id` and those members.
 */
export function leanItem(item: Record<string, unknown>, fields?: readonly string[]): Record<string, unknown> {
  const lean: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(withoutNulls(item))) {
    if (fields && name !== 'id' && !fields.includes(name)) continue;
    if (Array.isArray(value)) {
      if (value.length === 0) continue;
      if (!fields?.includes(name) && value.every((entry) => typeof entry === 'object' && entry !== null)) {
        lean[`${name.replace(/s$/, '')}_count`] = value.length;
        continue;
      }
    }
    lean[name] = value;
  }
  return lean;
}
