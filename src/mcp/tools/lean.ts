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

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** How many of `items`, from the first, fit into `budget` bytes of JSON. */
function countWithin(items: readonly unknown[], budget: number): number {
  let used = 0;
  for (let index = 0; index < items.length; index += 1) {
    used += jsonBytes(items[index]) + 1;
    if (used > budget) return index;
  }
  return items.length;
}

/** How many of `items`, from the first, fit into `budget` bytes of JSON (at least one: a caller always makes progress). */
export function countWithinBudget(items: readonly unknown[], budget: number): number {
  return Math.max(1, countWithin(items, budget));
}

const isRecordList = (value: unknown): value is unknown[] => Array.isArray(value) && value.length > 0 && value.every((entry) => typeof entry === 'object' && entry !== null);

/** The member that counts an array of records: `lines` → `line_count`. */
export const countName = (name: string) => `${name.replace(/s$/, '')}_count`;

/**
 * An item within `budget` bytes of JSON. Its arrays of records keep the leading records that
 * fit, with their full count beside them (`line_count`): an invoice holds up to 500 lines of
 * 1,000 characters, over 1 MB. Then, if it is still over, its longest texts are cut, each ending
 * `…`: a text may be long (a payment's `failure_reason` has no limit: 1 MB made a 2 MB result), and
 * a work order's 5,000 characters of emoji are 20 kB. `cut` names each member cut short, for the
 * result's hint.
 */
export function fitItem(item: Record<string, unknown>, budget: number): { item: Record<string, unknown>; cut: string[] } {
  const listed = fitLists(item, budget);
  return jsonBytes(listed.item) <= budget ? listed : fitTexts(listed.item, budget, listed.cut);
}

function fitLists(item: Record<string, unknown>, budget: number): { item: Record<string, unknown>; cut: string[] } {
  if (jsonBytes(item) <= budget) return { item, cut: [] };
  const lists = Object.keys(item).filter((name) => isRecordList(item[name]));
  const rest = Object.fromEntries(Object.entries(item).filter(([name]) => !lists.includes(name)));
  // Room for the counts: `,"line_count":500` for each.
  let left = budget - jsonBytes(rest) - lists.reduce((sum, name) => sum + jsonBytes({ [countName(name)]: (item[name] as unknown[]).length }), 0);
  const fitted: Record<string, unknown> = {};
  const cut: string[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (!lists.includes(name)) {
      fitted[name] = value;
      continue;
    }
    const records = value as unknown[];
    const kept = records.slice(0, countWithin(records, Math.max(0, left - name.length - 5)));
    left -= jsonBytes(kept) + name.length + 5;
    fitted[name] = kept;
    if (kept.length < records.length) {
      fitted[countName(name)] = records.length;
      cut.push(`${name} holds the first ${kept.length} of ${countName(name)}`);
    }
  }
  return { item: fitted, cut };
}

/**
 * A page's items within `budget` bytes: countWithinBudget keeps at least one item, so only a page
 * of one can be over it, and that item is fitted (fitItem).
 */
export function fitPage(items: Record<string, unknown>[], budget: number): { items: Record<string, unknown>[]; cut: string[] } {
  if (items.length !== 1) return { items, cut: [] };
  const { item, cut } = fitItem(items[0], budget);
  return { items: [item], cut };
}

/** Room kept beside a cut text for the JSON around it, so that the item ends within the budget. */
const TEXT_CUT_MARGIN = 16;

/** `item` with its longest string members cut, longest first, until it fits `budget` bytes. */
function fitTexts(item: Record<string, unknown>, budget: number, cut: string[]): { item: Record<string, unknown>; cut: string[] } {
  const fitted = { ...item };
  const sizes = new Map(Object.keys(fitted).filter((name) => typeof fitted[name] === 'string').map((name) => [name, jsonBytes(fitted[name])]));
  const texts = [...sizes.keys()].sort((a, b) => sizes.get(b)! - sizes.get(a)!);
  for (const name of texts) {
    const over = jsonBytes(fitted) - budget;
    if (over <= 0) break;
    const text = fitted[name] as string;
    const kept = leadingWithin(text, sizes.get(name)! - over - TEXT_CUT_MARGIN);
    fitted[name] = `${kept}…`;
    cut.push(`${name} holds its first ${[...kept].length} of ${[...text].length} characters`);
  }
  return { item: fitted, cut };
}

/** The longest leading part of `text`, whole code points, within `bytes` bytes as a JSON string. */
function leadingWithin(text: string, bytes: number): string {
  let used = 2;
  let end = 0;
  for (const character of text) {
    used += jsonBytes(character) - 2;
    if (used > bytes) break;
    end += character.length;
  }
  return text.slice(0, end);
}

/**
 * A list item as a model needs it: no null members or empty arrays, and each array of records
 * inside it (an invoice's lines) replaced by its count (`line_count`), unless `fields` names it.
 * With `fields`, only `id` and those members (a count named, `line_count`, is the list's count).
 */
export function leanItem(item: Record<string, unknown>, fields?: readonly string[]): Record<string, unknown> {
  const lean: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(withoutNulls(item))) {
    if (fields && name !== 'id' && !fields.includes(name) && !fields.includes(countName(name))) continue;
    if (Array.isArray(value)) {
      if (fields?.includes(countName(name))) {
        lean[countName(name)] = value.length;
        if (!fields.includes(name)) continue;
      }
      if (value.length === 0) continue;
      if (!fields?.includes(name) && isRecordList(value)) {
        lean[countName(name)] = value.length;
        continue;
      }
    }
    lean[name] = value;
  }
  return lean;
}
